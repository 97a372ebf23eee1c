package view

import (
	"strings"
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// TestConfirmationsInOddStates: the confirmations say what the action does
// in the states where the plain reading is wrong. promote of a canary the
// user paused mid-step also skips that step (the patch moves
// currentStepIndex on, as the CLI's); an aborted update is reset by the
// controller to the stable version at step 1 with promoteFull cleared, so
// promote and promote --full change nothing until a retry, and pause gives
// no step figures (the canary is gone); a blue-green
// update whose active Service already selects the new version does not
// switch again; a blue-green rollout the user paused before its promotion
// pause only goes on to that pause; a Rollout without a strategy gets texts,
// not a panic.
func TestConfirmationsInOddStates(t *testing.T) {
	userPaused := func() *rampv1.Rollout {
		ro := planRollout(5, canaryOf(setW(20), pause(""), setW(40), pause("1m")))
		updatingAt(ro, 2)
		ro.Spec.Paused = true
		return ro
	}
	aborted := func() *rampv1.Rollout {
		ro := planRollout(5, canaryOf(setW(20), pause(""), setW(40), pause("1m")))
		updatingAt(ro, 0)
		ro.Status.Abort = true
		return ro
	}
	cases := map[string]struct {
		ro        func() *rampv1.Rollout
		verb      string
		want, not string
	}{
		"promote a canary paused by the user mid-step": {userPaused, "promote",
			"Clears spec.paused. Ends step 3 (setWeight: 40) without waiting for it and moves on to step 4 (pause: 1m)", "goes on from"},
		"promote a canary paused by the user after its steps": {func() *rampv1.Rollout {
			ro := userPaused()
			ro.Status.CurrentStepIndex = ptrTo[int32](4)
			return ro
		}, "promote", "Clears spec.paused", "Ends"},
		"promote an aborted update":       {aborted, "promote", "aborted", "moves on"},
		"promote fully an aborted update": {aborted, "promote-full", "aborted", "gets all the traffic"},
		"pause an aborted update":         {aborted, "pause", "until it is resumed; nothing moves meanwhile.", "canary"},
		"promote a blue-green update after the switch": {func() *rampv1.Rollout {
			ro := bgPaused()
			ro.Status.BlueGreen.ActiveSelector = "b"
			ro.Status.PauseConditions = []rampv1.PauseCondition{{Reason: rampv1.PauseReasonInconclusiveAnalysis}}
			return ro
		}, "promote", "already selects the new version", "switches to the new version"},
		"promote a blue-green update paused by the user before its pause": {func() *rampv1.Rollout {
			ro := bgPaused()
			ro.Spec.Paused, ro.Status.PauseConditions = true, nil
			return ro
		}, "promote", "Clears spec.paused", "Ends the promotion pause"},
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
