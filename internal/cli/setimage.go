package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ramp-rollouts/ramp/internal/action"
)

func init() {
	register(func(e *env) *cobra.Command {
		set := &cobra.Command{Use: "set", Short: "Change a Rollout"}
		set.AddCommand(&cobra.Command{
			Use:   "image ROLLOUT CONTAINER=IMAGE...",
			Short: "Update container images (CONTAINER may be * for every container)",
			Args:  cobra.MinimumNArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error {
				t, err := e.getRollout(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				p, err := action.SetImage(t.ro, args[1:])
				if err != nil {
					return err
				}
				if err := t.patch(cmd.Context(), p); err != nil {
					return err
				}
				return printed(fmt.Fprintf(e.streams.Out, "rollout %q image updated\n", args[0]))
			},
		})
		return set
	})
}
