package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/types"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// The patches below are byte for byte those of the Argo Rollouts kubectl
// plugin (and Argo CD's Rollout actions), so every tool drives the same
// controller contract.
const (
	patchUnpause     = `{"spec":{"paused":false}}`
	patchPause       = `{"spec":{"paused":true}}`
	patchPromote     = `{"status":{"pauseConditions":null}}`
	patchPromoteFull = `{"status":{"promoteFull":true}}`
	patchAbort       = `{"status":{"abort":true}}`
	patchRetry       = `{"status":{"abort":false}}`
)

func init() {
	register(newPromote)
	register(simpleAction("abort", "Abort the update: back to the stable version", patchAbort, true, "aborted"))
	register(simpleAction("retry", "Retry an aborted update", patchRetry, true, "retried"))
	register(simpleAction("pause", "Pause the rollout (spec.paused)", patchPause, false, "paused"))
	register(newRestart)
}

// simpleAction is a verb that sends one fixed patch to a named Rollout.
func simpleAction(verb, short, body string, status bool, done string) func(*env) *cobra.Command {
	return func(e *env) *cobra.Command {
		return &cobra.Command{
			Use: verb + " ROLLOUT", Short: short, Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				t, err := e.getRollout(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				if err := t.patch(cmd.Context(), types.MergePatchType, body, status); err != nil {
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
			if err := promote(cmd.Context(), t, full); err != nil {
				return err
			}
			return printed(fmt.Fprintf(e.streams.Out, "rollout %q promoted\n", args[0]))
		},
	}
	cmd.Flags().BoolVar(&full, "full", false, "skip all remaining steps and analysis")
	return cmd
}

// promote sends the plugin's promote patches; it refuses, changing nothing,
// when there is nothing to promote.
func promote(ctx context.Context, t *target, full bool) error {
	ro := t.ro
	s := ro.Status
	wasPaused := ro.Spec.Paused // the patch below updates ro in place
	if wasPaused {
		if err := t.patch(ctx, types.MergePatchType, patchUnpause, false); err != nil {
			return err
		}
	}
	if full {
		if s.StableRS != "" && s.StableRS == s.CurrentPodHash {
			return fmt.Errorf("rollout %q is not updating: nothing to promote", t.ns+"/"+ro.Name)
		}
		return t.patch(ctx, types.MergePatchType, patchPromoteFull, true)
	}
	if len(s.PauseConditions) > 0 || s.ControllerPause {
		return t.patch(ctx, types.MergePatchType, patchPromote, true)
	}
	if c := ro.Spec.Strategy.Canary; c != nil && s.CurrentStepIndex != nil && int(*s.CurrentStepIndex) < len(c.Steps) {
		body, err := json.Marshal(map[string]any{"status": map[string]any{"pauseConditions": nil, "currentStepIndex": *s.CurrentStepIndex + 1}})
		if err != nil {
			return err
		}
		return t.patch(ctx, types.MergePatchType, string(body), true)
	}
	if wasPaused {
		return nil // unpausing was the promotion
	}
	return fmt.Errorf("rollout %q is not paused and has no step to skip: nothing to promote (phase %s)", t.ns+"/"+ro.Name, phaseOf(ro))
}

func phaseOf(ro *rampv1.Rollout) string {
	if ro.Status.Phase == "" {
		return "unknown"
	}
	return string(ro.Status.Phase)
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
			at := time.Now().Add(in).UTC().Format(time.RFC3339)
			if err := t.patch(cmd.Context(), types.MergePatchType, fmt.Sprintf(`{"spec":{"restartAt":%q}}`, at), false); err != nil {
				return err
			}
			return printed(fmt.Fprintf(e.streams.Out, "rollout %q restarts at %s\n", args[0], at))
		},
	}
	cmd.Flags().DurationVar(&in, "in", 0, "restart after this long (e.g. 10m)")
	return cmd
}
