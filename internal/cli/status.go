package cli

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func init() { register(newStatus) }

// newStatus waits for a verdict: Healthy exits 0, Degraded 1, timeout 2,
// Paused 0 only with --paused-ok. This is what a CI pipeline runs after
// `kubectl apply`.
func newStatus(e *env) *cobra.Command {
	var timeout time.Duration
	var pausedOK bool
	cmd := &cobra.Command{
		Use: "status ROLLOUT", Short: "Wait until the rollout is Healthy (exit 0), Degraded (1) or the timeout passes (2)",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			t, err := e.getRollout(ctx, args[0])
			if err != nil {
				return err
			}
			last := ""
			report := func(ro *rampv1.Rollout) (done bool, err error) {
				line := statusLine(ro)
				if line != last {
					if _, err := fmt.Fprintln(e.streams.Out, line); err != nil {
						return true, err
					}
					last = line
				}
				return verdict(ro, pausedOK)
			}
			if done, err := report(t.ro); done {
				return err
			}
			w, err := t.c.Watch(ctx, &rampv1.RolloutList{}, client.InNamespace(t.ns), client.MatchingFields{"metadata.name": args[0]})
			if err != nil {
				return explain(err, "watch", "rollouts.argoproj.io", t.ns, args[0])
			}
			defer w.Stop()
			for {
				select {
				case <-ctx.Done():
					return &ExitError{Code: 2, Err: fmt.Errorf("rollout %q: timed out after %s (%s)", t.ns+"/"+args[0], timeout, last)}
				case ev, ok := <-w.ResultChan():
					if !ok {
						return &ExitError{Code: 2, Err: fmt.Errorf("rollout %q: watch closed (%s)", t.ns+"/"+args[0], last)}
					}
					ro, isRollout := ev.Object.(*rampv1.Rollout)
					if ev.Type == watch.Deleted {
						return fmt.Errorf("rollout %q was deleted", t.ns+"/"+args[0])
					}
					if !isRollout {
						continue
					}
					if done, err := report(ro); done {
						return err
					}
				}
			}
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Minute, "give up after this long (exit 2)")
	cmd.Flags().BoolVar(&pausedOK, "paused-ok", false, "exit 0 when the rollout is Paused")
	return cmd
}

func statusLine(ro *rampv1.Rollout) string {
	s := ro.Status
	if s.Message != "" {
		return fmt.Sprintf("%s - %s", phaseOf(ro), s.Message)
	}
	return phaseOf(ro)
}

// verdict: done with nil (success), done with an ExitError, or not done.
func verdict(ro *rampv1.Rollout, pausedOK bool) (bool, error) {
	if ro.Status.ObservedGeneration != strconv.FormatInt(ro.Generation, 10) {
		return false, nil // the controller has not seen the latest spec yet
	}
	switch ro.Status.Phase {
	case rampv1.RolloutPhaseHealthy:
		return true, nil
	case rampv1.RolloutPhaseDegraded:
		return true, &ExitError{Code: 1, Err: fmt.Errorf("rollout %q is Degraded: %s", ro.Namespace+"/"+ro.Name, ro.Status.Message)}
	case rampv1.RolloutPhasePaused:
		return pausedOK, nil
	}
	return false, nil
}

func phaseOf(ro *rampv1.Rollout) string {
	if ro.Status.Phase == "" {
		return "unknown"
	}
	return string(ro.Status.Phase)
}
