package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func init() { register(newUndo) }

func newUndo(e *env) *cobra.Command {
	var to int64
	cmd := &cobra.Command{
		Use: "undo ROLLOUT", Short: "Roll back to an earlier revision (default: the one before the current)",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := e.getRollout(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			rs, err := revisionToUndo(cmd.Context(), t, to)
			if err != nil {
				return err
			}
			// Like the Argo Rollouts plugin: put that ReplicaSet's template back,
			// without its pod-template-hash label.
			tmpl := rs.Spec.Template.DeepCopy()
			delete(tmpl.Labels, rampv1.DefaultRolloutUniqueLabelKey)
			body, err := json.Marshal([]map[string]any{{"op": "replace", "path": "/spec/template", "value": tmpl}})
			if err != nil {
				return err
			}
			if err := t.patch(cmd.Context(), types.JSONPatchType, string(body), false); err != nil {
				return err
			}
			return printed(fmt.Fprintf(e.streams.Out, "rollout %q rolled back to revision %s\n", args[0], rs.Annotations[rampv1.RevisionAnnotation]))
		},
	}
	cmd.Flags().Int64Var(&to, "to-revision", 0, "revision to roll back to (0: the previous one)")
	return cmd
}

// revisionToUndo finds the ReplicaSet of revision to, or the newest one
// older than the current template's.
func revisionToUndo(ctx context.Context, t *target, to int64) (*appsv1.ReplicaSet, error) {
	var list appsv1.ReplicaSetList
	if err := t.c.List(ctx, &list, client.InNamespace(t.ns)); err != nil {
		return nil, explain(err, "list", "replicasets.apps", t.ns, t.ro.Name)
	}
	var current int64
	var owned []*appsv1.ReplicaSet
	for i := range list.Items {
		rs := &list.Items[i]
		if ref := ownerOf(rs); ref != t.ro.UID {
			continue
		}
		owned = append(owned, rs)
		if rs.Labels[rampv1.DefaultRolloutUniqueLabelKey] == t.ro.Status.CurrentPodHash {
			current = revision(rs)
		}
	}
	var best *appsv1.ReplicaSet
	for _, rs := range owned {
		rev := revision(rs)
		switch {
		case to != 0 && rev == to:
			return rs, nil
		case to == 0 && rev < current && (best == nil || rev > revision(best)):
			best = rs
		}
	}
	if best == nil {
		if to != 0 {
			return nil, fmt.Errorf("rollout %q has no revision %d", t.ns+"/"+t.ro.Name, to)
		}
		return nil, fmt.Errorf("rollout %q has no revision before %d to roll back to", t.ns+"/"+t.ro.Name, current)
	}
	return best, nil
}

func ownerOf(rs *appsv1.ReplicaSet) types.UID {
	for _, ref := range rs.OwnerReferences {
		if ref.Controller != nil && *ref.Controller && ref.Kind == "Rollout" {
			return ref.UID
		}
	}
	return ""
}

func revision(rs *appsv1.ReplicaSet) int64 {
	v, _ := strconv.ParseInt(rs.Annotations[rampv1.RevisionAnnotation], 10, 64) // missing or not a number: revision 0, never the one to roll back to
	return v
}
