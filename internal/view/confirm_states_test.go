package view

import (
	"strings"
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// TestConfirmationsInOddStates: a Rollout without a strategy (an invalid
// spec) gets texts, not a panic.
func TestConfirmationsInOddStates(t *testing.T) {
	cases := map[string]struct {
		ro        func() *rampv1.Rollout
		verb      string
		want, not string
	}{
		"abort without a strategy": {func() *rampv1.Rollout {
			ro := planRollout(5, rampv1.RolloutStrategy{})
			updatingAt(ro, 0)
			return ro
		}, "abort", "Stops the update", ""},
		"promote fully without a strategy": {func() *rampv1.Rollout {
			ro := planRollout(5, rampv1.RolloutStrategy{})
			updatingAt(ro, 0)
			return ro
		}, "promote-full", "Skips", ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			ro := c.ro()
			tr, err := plan.Simulate(ro, plan.SimOptions{})
			got := ConfirmationsOf(ro, revisionsOf(ro), tr, err).Actions[c.verb]
			if !strings.Contains(got, c.want) || (c.not != "" && strings.Contains(got, c.not)) {
				t.Errorf("%s says\n %q\nwant it to contain %q and not %q", c.verb, got, c.want, c.not)
			}
		})
	}
}
