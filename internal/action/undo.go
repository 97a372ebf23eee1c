package action

import (
	"encoding/json"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Undo is the JSON patch that rolls ro back to revision to (0: the newest
// revision older than the current one), chosen among rss (the namespace's
// ReplicaSets; those ro does not control are ignored). Like the Argo
// Rollouts plugin it puts that ReplicaSet's pod template back, without its
// pod-template-hash label. It returns the revision chosen.
func Undo(ro *rampv1.Rollout, rss []appsv1.ReplicaSet, to int64) (Patch, int64, error) {
	rs, err := revisionToUndo(ro, rss, to)
	if err != nil {
		return Patch{}, 0, err
	}
	tmpl := rs.Spec.Template.DeepCopy()
	delete(tmpl.Labels, rampv1.DefaultRolloutUniqueLabelKey)
	body, err := json.Marshal([]map[string]any{{"op": "replace", "path": "/spec/template", "value": tmpl}})
	return Patch{types.JSONPatchType, string(body), false}, Revision(rs), err
}

func revisionToUndo(ro *rampv1.Rollout, rss []appsv1.ReplicaSet, to int64) (*appsv1.ReplicaSet, error) {
	var current int64
	var owned []*appsv1.ReplicaSet
	for i := range rss {
		rs := &rss[i]
		if ownerOf(rs) != ro.UID {
			continue
		}
		owned = append(owned, rs)
		if rs.Labels[rampv1.DefaultRolloutUniqueLabelKey] == ro.Status.CurrentPodHash {
			current = Revision(rs)
		}
	}
	var best *appsv1.ReplicaSet
	for _, rs := range owned {
		rev := Revision(rs)
		switch {
		case to != 0 && rev == to:
			return rs, nil
		case to == 0 && rev < current && (best == nil || rev > Revision(best)):
			best = rs
		}
	}
	id := ro.Namespace + "/" + ro.Name
	if best == nil {
		if to != 0 {
			return nil, fmt.Errorf("rollout %q has no revision %d", id, to)
		}
		return nil, fmt.Errorf("rollout %q has no revision before %d to roll back to", id, current)
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

// Revision is a ReplicaSet's rollout revision; 0 when missing or not a
// number (never the one to roll back to).
func Revision(rs *appsv1.ReplicaSet) int64 {
	v, _ := strconv.ParseInt(rs.Annotations[rampv1.RevisionAnnotation], 10, 64)
	return v
}
