package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ramp-rollouts/ramp/internal/action"
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
			var list appsv1.ReplicaSetList
			if err := t.c.List(cmd.Context(), &list, client.InNamespace(t.ns)); err != nil {
				return explain(err, "list", "replicasets.apps", t.ns, t.ro.Name)
			}
			p, rev, err := action.Undo(t.ro, list.Items, to)
			if err != nil {
				return err
			}
			if err := t.patch(cmd.Context(), p); err != nil {
				return err
			}
			return printed(fmt.Fprintf(e.streams.Out, "rollout %q rolled back to revision %d\n", args[0], rev))
		},
	}
	cmd.Flags().Int64Var(&to, "to-revision", 0, "revision to roll back to (0: the previous one)")
	return cmd
}
