package view

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// TestConfirmationsOf: each action's confirmation says what it will do to
// this Rollout now, with the planner's figures: promote names the step it
// ends and the one it moves to with its pods and traffic, abort the stable
// images and the scale-down delay, undo each revision's images, and an
// action that would do nothing says so.
func TestConfirmationsOf(t *testing.T) {
	paused := func() *rampv1.Rollout {
		ro := planRollout(5, canaryOf(setW(20), pause(""), setW(40), pause("1m")))
		updatingAt(ro, 1)
		ro.Status.PauseConditions = []rampv1.PauseCondition{{Reason: rampv1.PauseReasonCanaryPauseStep}}
		return ro
	}
	cases := map[string]struct {
		ro   func() *rampv1.Rollout
		verb string
		want string
	}{
		"promote at a pause": {paused, "promote", "Ends step 2 (pause) and moves on to step 3 (setWeight: 40): canary 2 pods, stable 3, 40% of traffic."},
		"promote at the last step": {func() *rampv1.Rollout {
			ro := paused()
			ro.Status.CurrentStepIndex = ptrTo[int32](3)
			return ro
		}, "promote", "Ends step 4 (pause: 1m) and moves on to the end of the steps (fully promoted): the new version becomes stable with all 5 pods and 100% of traffic."},
		"promote skips a running step": {func() *rampv1.Rollout {
			ro := paused()
			ro.Status.PauseConditions, ro.Status.CurrentStepIndex = nil, ptrTo[int32](0)
			return ro
		}, "promote", "Ends step 1 (setWeight: 20) without waiting for it and moves on to step 2 (pause): canary 1 pod, stable 4, 20% of traffic."},
		"promote a spec.paused rollout": {func() *rampv1.Rollout {
			ro := paused()
			ro.Spec.Paused, ro.Status.PauseConditions = true, nil
			return ro
		}, "promote", "Clears spec.paused. Ends step 2 (pause) without waiting for it and moves on to step 3 (setWeight: 40): canary 2 pods"},
		"promote an inconclusive analysis": {func() *rampv1.Rollout {
			ro := planRollout(5, canaryOf(setW(20), rampv1.CanaryStep{Analysis: &rampv1.RolloutAnalysis{}}, setW(60)))
			updatingAt(ro, 1)
			ro.Status.PauseConditions = []rampv1.PauseCondition{{Reason: rampv1.PauseReasonInconclusiveAnalysis}}
			return ro
		}, "promote", "Clears the pause (InconclusiveAnalysisRun) and step 2 (analysis) goes on"},
		"nothing to promote": {func() *rampv1.Rollout {
			ro := paused()
			ro.Status.CurrentPodHash, ro.Status.PauseConditions, ro.Status.CurrentStepIndex = "a", nil, ptrTo[int32](4)
			return ro
		}, "promote", "Nothing to promote: "},
		"promote fully":     {paused, "promote-full", "Skips every remaining step, analysis and pause (from step 2 (pause) to step 4): the new version gets all the traffic and all 5 replicas"},
		"abort basic":       {paused, "abort", "Stops the update at step 2 (pause): traffic goes back to the stable version (app=app:1); the canary is scaled down as stable grows back. Retry starts it again from step 1 (setWeight: 20)."},
		"abort routed":      {routed, "abort", "(every router sends the canary 0%); the canary is scaled down after 30s (abortScaleDownDelaySeconds)"},
		"abort blue-green":  {bgPaused, "abort", "the active service stays on (or goes back to) the stable version (app=app:1) and the preview is scaled down after 30s"},
		"already aborted":   {func() *rampv1.Rollout { ro := paused(); ro.Status.Abort = true; return ro }, "abort", "Already aborted"},
		"retry":             {func() *rampv1.Rollout { ro := paused(); ro.Status.Abort = true; return ro }, "retry", "starts the update again from step 1 (setWeight: 20): canary 1 pod, stable 4, 20% of traffic."},
		"retry not aborted": {paused, "retry", "not aborted: retry changes nothing"},
		"pause":             {paused, "pause", "Pauses the rollout where it is (spec.paused: true) until it is resumed; nothing moves meanwhile at step 2 (pause): canary 1 pod, stable 4, 20% of traffic."},
		"resume not paused": {paused, "resume", "not paused (spec.paused is false): resume changes nothing"},
		"restart":           {paused, "restart", "Restarts every pod of the rollout (5 pods now)"},
		"set image":         {paused, "set-image", "(now app=app:2); this starts a new update from step 1 (setWeight: 20): canary 1 pod, stable 4, 20% of traffic."},
		"promote blue-green": {bgPaused, "promote", "Ends the promotion pause: the active service switches to the new version once all 4 of its pods are available; " +
			"the new ReplicaSet becomes stable; the old one stays 30s (scaleDownDelaySeconds)."},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			ro := c.ro()
			tr, err := plan.Simulate(ro, plan.SimOptions{})
			got := ConfirmationsOf(ro, revisionsOf(ro), tr, err).Actions[c.verb]
			if !strings.Contains(got, c.want) {
				t.Errorf("%s says\n %q\nwant it to contain\n %q", c.verb, got, c.want)
			}
		})
	}
}

// TestConfirmationsUndo: undo lists every revision, newest first, the
// previous first of all (the current one changes nothing), with its images and whether it
// runs the steps again.
func TestConfirmationsUndo(t *testing.T) {
	ro := planRollout(5, canaryOf(setW(20), pause("")))
	updatingAt(ro, 1)
	rss := revisionsOf(ro)
	w := &world{ro: ro}
	rss = append(rss, *w.addRS("z", 1, "app:0", 0, 0, time.Hour))
	tr, err := plan.Simulate(ro, plan.SimOptions{})
	got := ConfirmationsOf(ro, rss, tr, err).Undo
	want := []struct {
		rev  int64
		text string
	}{
		{0, "The previous revision is 2. Rolls the pod template back to revision 2 (app=app:1): it is the stable revision, so the rollout returns to it at once, skipping the steps."},
		{3, "Rolls the pod template back to revision 3 (app=app:2): it is the current template, nothing changes."},
		{2, "Rolls the pod template back to revision 2 (app=app:1): it is the stable revision"},
		{1, "Rolls the pod template back to revision 1 (app=app:0); this starts a new update from step 1 (setWeight: 20): canary 1 pod, stable 4, 20% of traffic."},
	}
	if len(got) != len(want) {
		t.Fatalf("undo targets %+v, want %d", got, len(want))
	}
	for i, w := range want {
		if got[i].Revision != w.rev || !strings.Contains(got[i].Text, w.text) {
			t.Errorf("undo target %d = %+v, want revision %d saying %q", i, got[i], w.rev, w.text)
		}
	}
}

// revisionsOf are ro's stable (a, revision 2, app:1) and current (b,
// revision 3, app:2) ReplicaSets.
func revisionsOf(ro *rampv1.Rollout) []appsv1.ReplicaSet {
	w := &world{ro: ro}
	w.addRS("a", 2, "app:1", 4, 4, time.Hour)
	w.addRS("b", 3, "app:2", 1, 1, time.Minute)
	return w.rss
}

func routed() *rampv1.Rollout {
	ro := planRollout(4, canaryOf(setW(50), pause("")))
	ro.Spec.Strategy.Canary.CanaryService, ro.Spec.Strategy.Canary.StableService = "web-canary", "web-stable"
	ro.Spec.Strategy.Canary.TrafficRouting = &rampv1.RolloutTrafficRouting{Nginx: &rampv1.NginxTrafficRouting{StableIngress: "web"}}
	updatingAt(ro, 1)
	return ro
}

func bgPaused() *rampv1.Rollout {
	ro := blueGreenRollout(4)
	ro.Status.StableRS, ro.Status.CurrentPodHash = "a", "b"
	ro.Status.PauseConditions = []rampv1.PauseCondition{{Reason: rampv1.PauseReasonBlueGreenPause}}
	return ro
}

func ptrTo[T any](v T) *T { return &v }
