package plan

import (
	"fmt"
	"math"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestPauseNeverEndsEarly: a timed pause as long as a time.Duration holds
// (or longer) waits practically forever: it never ends at once because the
// deadline arithmetic wrapped around, and the requeue is never negative.
// Digits beyond an int32 of seconds are InvalidSpec, as upstream, so that
// pause is never taken short either.
func TestPauseNeverEndsEarly(t *testing.T) {
	for _, d := range []intstr.IntOrString{
		intstr.FromString("2562047h47m16.854775807s"), // exactly the longest time.Duration
		intstr.FromString("2562047h47m16.84s"),        // within 20 ms of it: overflowed with the 20 ms slack pauses once had
		intstr.FromString("2562047h"),
		intstr.FromInt32(math.MaxInt32),
		intstr.FromString(fmt.Sprint(math.MaxInt32)),
		intstr.FromString("9223372037"), // InvalidSpec (below); a planner given it anyway waits for a promote
	} {
		t.Run(d.String(), func(t *testing.T) {
			s := newSim(t, 5, weight(20), rampv1.CanaryStep{Pause: &rampv1.RolloutPause{Duration: &d}}, weight(80))
			s.run("v1", time.Minute)
			s.run("v2", time.Minute)
			s.now = s.now.Add(240 * time.Hour)
			out := s.plan(s.input("v2"))
			s.apply("v2", out)
			if st := s.ro.Status; *st.CurrentStepIndex != 1 || st.Phase != rampv1.RolloutPhasePaused || s.rs["v2"].Spec != 1 {
				t.Errorf("ten days into the pause: step %d phase %s v2=%d, want paused at step 1 with 1 canary pod",
					*st.CurrentStepIndex, st.Phase, s.rs["v2"].Spec)
			}
			if out.RequeueAfter < 0 {
				t.Errorf("requeue after %v: negative", out.RequeueAfter)
			}
		})
	}
	ro := newSim(t, 5, weight(20), pauseFor("9223372037")).ro
	if got, want := ValidateStrategy(ro), `spec.strategy.canary.steps[1].pause.duration "9223372037": strconv.ParseInt: parsing "9223372037": value out of range`; got != want {
		t.Errorf("ValidateStrategy = %q, want %q", got, want)
	}
}
