package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ramp-rollouts/ramp/internal/action"
)

// The patches come from internal/action, shared with the dashboard: byte
// for byte those of the Argo Rollouts kubectl plugin.

func init() {
	register(newPromote)
	register(simpleAction("abort", "Abort the update: back to the stable version", action.Abort, "aborted"))
	register(simpleAction("retry", "Retry an aborted update", action.Retry, "retried"))
	register(simpleAction("pause", "Pause the rollout (spec.paused)", action.Pause, "paused"))
	register(simpleAction("resume", "Resume a rollout paused with pause (spec.paused: false)", action.Unpause, "resumed"))
	register(newRestart)
}

// simpleAction is a verb that sends one fixed patch to a named Rollout.
func simpleAction(verb, short string, p action.Patch, done string) func(*env) *cobra.Command {
	return func(e *env) *cobra.Command {
		return &cobra.Command{
			Use: verb + " ROLLOUT", Short: short, Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				t, err := e.getRollout(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				if err := t.patch(cmd.Context(), p); err != nil {
					return err
				}
				return printed(fmt.Fprintf(e.streams.Out, "rollout %q %s\n", args[0], done))
			},
		}
	}
}

func newPromote(e *env) *cobra.Command {
	var full bool
	cmd := &cobra.Command{
		Use: "promote ROLLOUT", Short: "Promote: end the current pause (or skip the current step); --full skips every remaining step",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := e.getRollout(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			patches, err := action.Promote(t.ro, full)
			if err != nil {
				return err
			}
			for _, p := range patches {
				if err := t.patch(cmd.Context(), p); err != nil {
					return err
				}
			}
			return printed(fmt.Fprintf(e.streams.Out, "rollout %q promoted\n", args[0]))
		},
	}
	cmd.Flags().BoolVar(&full, "full", false, "skip all remaining steps and analysis")
	return cmd
}

func newRestart(e *env) *cobra.Command {
	var in time.Duration
	cmd := &cobra.Command{
		Use: "restart ROLLOUT", Short: "Restart every pod (spec.restartAt), one at a time within maxUnavailable",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := e.getRollout(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			at := time.Now().Add(in)
			if err := t.patch(cmd.Context(), action.Restart(at)); err != nil {
				return err
			}
			return printed(fmt.Fprintf(e.streams.Out, "rollout %q restarts at %s\n", args[0], at.UTC().Format(time.RFC3339)))
		},
	}
	cmd.Flags().DurationVar(&in, "in", 0, "restart after this long (e.g. 10m)")
	return cmd
}
