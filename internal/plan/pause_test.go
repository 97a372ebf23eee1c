package plan

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestPauseStart: the precise start counts only when it lies within the
// condition's startTime second and not after now; any other value (none,
// stale, edited, ahead of the clock) counts from the end of that second,
// so it can only lengthen the pause.
func TestPauseStart(t *testing.T) {
	second := time.Date(2026, 1, 1, 10, 0, 5, 0, time.UTC)
	now := second.Add(700 * time.Millisecond)
	cond := rampv1.PauseCondition{Reason: rampv1.PauseReasonCanaryPauseStep, StartTime: metav1.Time{Time: second}}
	at := func(d time.Duration) *metav1.MicroTime { return &metav1.MicroTime{Time: second.Add(d)} }
	late := second.Add(time.Second)
	for _, tc := range []struct {
		name    string
		precise *metav1.MicroTime
		want    time.Time
	}{
		{"precise within the second", at(345678 * time.Microsecond), second.Add(345678 * time.Microsecond)},
		{"precise on the second", at(0), second},
		{"precise equal to now", at(700 * time.Millisecond), now},
		{"none (upstream wrote the pause)", nil, late},
		{"later than now, within the second", at(800 * time.Millisecond), late},
		{"later than now by a day", at(24 * time.Hour), late},
		{"a microsecond before startTime", at(-time.Microsecond), late},
		{"earlier than startTime by more than 1s", at(-1500 * time.Millisecond), late},
		{"a previous pause's, long ago", at(-time.Hour), late},
		{"at the next second", at(time.Second), late},
		{"zero", &metav1.MicroTime{}, late},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pauseStart(cond, tc.precise, now); !got.Equal(tc.want) {
				t.Errorf("pauseStart = %v, want %v", got, tc.want)
			}
		})
	}
}

// pausedSim is a 5-replica canary paused on the timed pause of step 1
// (setWeight 20, pause 1s, setWeight 60) at 0.35 s past a second, its
// status read back through JSON as the API server stores it.
func pausedSim(t *testing.T) (s *sim, start time.Time) {
	s = newSim(t, 5, weight(20), pauseFor("1"), weight(60))
	s.run("v1", time.Minute)
	s.now = s.now.Truncate(time.Second).Add(time.Second + 350*time.Millisecond)
	for i := 0; i < 10 && len(s.ro.Status.PauseConditions) == 0; i++ {
		s.apply("v2", s.plan(s.input("v2")))
	}
	st := s.ro.Status
	if *st.CurrentStepIndex != 1 || len(st.PauseConditions) != 1 || st.Canary.PauseStartTime == nil {
		t.Fatalf("not paused at step 1 with a precise start: %+v", st)
	}
	return s, st.Canary.PauseStartTime.Time
}

// TestPauseExact: a timed pause starts in the pass that reaches it, with
// upstream's second-precision startTime and the precise start beside it;
// read back from status (as after a restart) it requeues to the exact
// deadline, is still paused a microsecond before it and ends at it; the
// pass that ends it drops the precise start.
func TestPauseExact(t *testing.T) {
	s, start := pausedSim(t)
	st := s.ro.Status
	if got := st.PauseConditions[0].StartTime.Time; !got.Equal(start.Truncate(time.Second)) || got.Equal(start) {
		t.Errorf("startTime %v, want the second of the precise start %v", got, start)
	}
	if start.Sub(start.Truncate(time.Second)) < 300*time.Millisecond {
		t.Errorf("precise start %v: not the moment the step was reached (0.35 s past a second and on)", start)
	}
	deadline := start.Add(time.Second)
	s.now = deadline.Add(-time.Microsecond)
	out := s.plan(s.input("v2"))
	if out.RequeueAfter != time.Microsecond || *out.Status.CurrentStepIndex != 1 {
		t.Errorf("a microsecond before the deadline: requeue %v at step %d, want 1µs at step 1", out.RequeueAfter, *out.Status.CurrentStepIndex)
	}
	s.now = deadline
	out = s.plan(s.input("v2"))
	if *out.Status.CurrentStepIndex != 2 || out.PauseOvershoot == nil || *out.PauseOvershoot != 0 {
		t.Errorf("at the deadline: step %d overshoot %v, want step 2, 0", *out.Status.CurrentStepIndex, out.PauseOvershoot)
	}
	if p := out.Status.Canary.PauseStartTime; p != nil || len(out.Status.PauseConditions) != 0 {
		t.Errorf("after the pause: precise start %v, conditions %v, want neither", p, out.Status.PauseConditions)
	}
}

// TestPauseUnusablePreciseStart: a precise start missing (upstream paused),
// stale or ahead of the clock never shortens the pause: it ends at the end
// of startTime's second plus the duration, with the requeue to that moment.
func TestPauseUnusablePreciseStart(t *testing.T) {
	for _, tc := range []struct {
		name    string
		precise func(startTime time.Time) *metav1.MicroTime
	}{
		{"none", func(time.Time) *metav1.MicroTime { return nil }},
		{"earlier than startTime by more than 1s", func(st time.Time) *metav1.MicroTime {
			return &metav1.MicroTime{Time: st.Add(-1500 * time.Millisecond)}
		}},
		{"a microsecond before startTime", func(st time.Time) *metav1.MicroTime { return &metav1.MicroTime{Time: st.Add(-time.Microsecond)} }},
		{"later than now", func(st time.Time) *metav1.MicroTime { return &metav1.MicroTime{Time: st.Add(time.Hour)} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, start := pausedSim(t)
			second := s.ro.Status.PauseConditions[0].StartTime.Time
			s.ro.Status.Canary.PauseStartTime = tc.precise(second)
			deadline := second.Add(2 * time.Second)
			s.now = start.Add(time.Second) // the precise deadline: too early now
			out := s.plan(s.input("v2"))
			if *out.Status.CurrentStepIndex != 1 || out.RequeueAfter != deadline.Sub(s.now) {
				t.Errorf("at start+1s: step %d requeue %v, want step 1 and %v", *out.Status.CurrentStepIndex, out.RequeueAfter, deadline.Sub(s.now))
			}
			s.now = deadline.Add(-time.Nanosecond)
			if out = s.plan(s.input("v2")); *out.Status.CurrentStepIndex != 1 {
				t.Errorf("a nanosecond before startTime+1s+1s: step %d, want still paused at 1", *out.Status.CurrentStepIndex)
			}
			s.now = deadline
			if out = s.plan(s.input("v2")); *out.Status.CurrentStepIndex != 2 {
				t.Errorf("at startTime+1s+1s: step %d, want 2", *out.Status.CurrentStepIndex)
			}
		})
	}
}

// TestPauseStartForgotten: a promote (the plugin clears the pause
// conditions) drops the precise start in the next pass, so it is never
// read for a later pause; an indefinite pause records none.
func TestPauseStartForgotten(t *testing.T) {
	s, _ := pausedSim(t)
	s.ro.Status.PauseConditions = nil
	out := s.plan(s.input("v2"))
	if p := out.Status.Canary.PauseStartTime; p != nil {
		t.Errorf("after a promote: precise start %v, want none", p)
	}
	s = newSim(t, 5, weight(20), pauseForever())
	s.run("v1", time.Minute)
	s.run("v2", time.Minute)
	if st := s.ro.Status; len(st.PauseConditions) != 1 || st.Canary.PauseStartTime != nil {
		t.Errorf("indefinite pause: conditions %v precise start %v, want one condition and no precise start", st.PauseConditions, st.Canary.PauseStartTime)
	}
}

// TestBlueGreenAutoPromotionExact: autoPromotionSeconds counts from the
// pass that pauses, to the microsecond (status.blueGreen.pauseStartTime,
// read back through JSON), with an exact requeue; without a usable precise
// start it counts from the end of startTime's second. The promoting pass
// drops the precise start.
func TestBlueGreenAutoPromotionExact(t *testing.T) {
	for _, drop := range []bool{false, true} {
		s := newBlueGreen(t, 2, rampv1.BlueGreenStrategy{AutoPromotionSeconds: 3})
		s.run("v1", time.Minute)
		s.now = s.now.Truncate(time.Second).Add(time.Second + 350*time.Millisecond)
		for i := 0; i < 10 && len(s.ro.Status.PauseConditions) == 0; i++ {
			s.apply("v2", s.plan(s.input("v2")))
			s.now = s.now.Add(time.Millisecond)
		}
		st := s.ro.Status
		if len(st.PauseConditions) != 1 || st.BlueGreen.PauseStartTime == nil {
			t.Fatalf("not paused with a precise start: %+v", st)
		}
		second, precise := st.PauseConditions[0].StartTime.Time, st.BlueGreen.PauseStartTime.Time
		if !second.Equal(precise.Truncate(time.Second)) || precise.Sub(second) < 300*time.Millisecond {
			t.Fatalf("startTime %v, precise start %v: want the step's moment, 0.35 s past the second", second, precise)
		}
		deadline := precise.Add(3 * time.Second)
		if drop { // upstream paused it: no precise start
			s.ro.Status.BlueGreen.PauseStartTime = nil
			deadline = second.Add(4 * time.Second)
		}
		s.now = deadline.Add(-time.Microsecond)
		out := s.plan(s.input("v2"))
		if out.RequeueAfter != time.Microsecond || len(out.Status.PauseConditions) != 1 {
			t.Errorf("drop=%v: a microsecond before %v: requeue %v, conditions %v; want 1µs, still paused", drop, deadline, out.RequeueAfter, out.Status.PauseConditions)
		}
		s.now = deadline
		out = s.plan(s.input("v2"))
		if len(out.Status.PauseConditions) != 0 || out.Status.BlueGreen.PauseStartTime != nil {
			t.Errorf("drop=%v: at %v: conditions %v, precise start %v; want neither (promoting)", drop, deadline,
				out.Status.PauseConditions, out.Status.BlueGreen.PauseStartTime)
		}
		s.apply("v2", out)
		s.run("v2", time.Minute)
		if a := s.ro.Status.BlueGreen.ActiveSelector; a != "v2" {
			t.Errorf("drop=%v: active %s after the promotion, want v2", drop, a)
		}
	}
}
