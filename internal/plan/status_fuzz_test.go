package plan

import (
	"math"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// fuzzSteps are canary steps from bytes, two a step: setWeight, an
// indefinite pause, a pause of seconds or of a Go duration string.
func fuzzSteps(b []byte, durations []string) []rampv1.CanaryStep {
	var steps []rampv1.CanaryStep
	for i := 0; i+1 < len(b) && len(steps) < 12; i += 2 {
		switch b[i] % 4 {
		case 0:
			steps = append(steps, weight(int32(b[i+1])%101))
		case 1:
			steps = append(steps, pauseForever())
		case 2:
			d := intstr.FromInt32(int32(b[i+1]))
			steps = append(steps, rampv1.CanaryStep{Pause: &rampv1.RolloutPause{Duration: &d}})
		case 3:
			d := intstr.FromString(durations[int(b[i+1])%len(durations)])
			steps = append(steps, rampv1.CanaryStep{Pause: &rampv1.RolloutPause{Duration: &d}})
		}
	}
	return steps
}

var fuzzDurations = []string{"10s", "1h", "2562047h47m16.854775807s", "2562047h47m16.84s", "2147483647", "0s", "1ms"}

// FuzzCanaryStatus: a canary paused on its update, then its status
// overwritten with any step index, pause condition (with or without a
// precise start, usable or not), stableRS, currentPodHash, controllerPause
// and abort. The plan never panics, its step index is within 0..steps, and
// a timed pause of an update in progress (with its condition) never ends
// before its start plus its duration: the precise start when usable, else
// the end of the condition's startTime second.
func FuzzCanaryStatus(f *testing.F) {
	f.Add([]byte{0, 20, 1, 0, 0, 60, 2, 60}, int32(-1), int64(-3600), uint8(1), int64(0))
	f.Add([]byte{0, 20, 3, 2, 0, 80}, int32(1), int64(0), uint8(1), int64(86400*365*300))
	f.Add([]byte{0, 20, 3, 3, 0, 80}, int32(1), int64(-10), uint8(1|1<<4), int64(3600))
	f.Add([]byte{0, 20, 1, 0}, int32(math.MinInt32), int64(0), uint8(1|1<<1|1<<2), int64(0))
	f.Add([]byte{0, 20, 1, 0, 2, 10}, int32(math.MaxInt32), int64(math.MinInt64), uint8(1|1<<3), int64(math.MaxInt64))
	f.Add([]byte{}, int32(0), int64(0), uint8(1<<5), int64(1))
	f.Add([]byte{0, 20, 2, 1, 0, 80}, int32(1), int64(0), uint8(1|1<<1|1<<2|1<<6), int64(1400*time.Millisecond))
	f.Add([]byte{0, 20, 2, 1, 0, 80}, int32(1), int64(0), uint8(1|1<<1|1<<2|1<<7), int64(1400*time.Millisecond))
	f.Add([]byte{0, 20, 2, 1, 0, 80}, int32(1), int64(0), uint8(1|1<<1|1<<2|1<<6|1<<7), int64(1900*time.Millisecond))
	f.Fuzz(func(t *testing.T, b []byte, step int32, startOffset int64, knobs uint8, after int64) {
		steps := fuzzSteps(b, fuzzDurations)
		s := newSim(t, 5, steps...)
		s.run("v1", time.Minute)
		s.run("v2", time.Minute)
		st := &s.ro.Status
		bit := func(i uint) bool { return knobs&(1<<i) != 0 }
		st.CurrentStepIndex = &step
		if bit(0) {
			start := metav1.NewTime(s.now.Add(time.Duration(startOffset % int64(100*365*24*time.Hour))).Truncate(time.Second))
			st.PauseConditions = []rampv1.PauseCondition{{Reason: rampv1.PauseReasonCanaryPauseStep, StartTime: start}}
		}
		st.ControllerPause = bit(1)
		if bit(2) {
			st.StableRS = "nope"
		}
		if bit(3) {
			st.CurrentPodHash = "gone"
		}
		if bit(4) {
			st.Abort = true
		}
		if bit(5) {
			st.CurrentStepIndex = nil
		}
		// The precise start beside the condition: none, within its second,
		// a stale one from before it, or one ahead of the clock.
		slack := time.Second // what an unusable precise start adds
		if bit(0) {
			start := st.PauseConditions[0].StartTime.Time
			switch {
			case bit(6) && bit(7):
				st.Canary.PauseStartTime = &metav1.MicroTime{Time: s.now.Add(time.Hour)}
			case bit(6):
				st.Canary.PauseStartTime, slack = &metav1.MicroTime{Time: start.Add(400 * time.Millisecond)}, 400*time.Millisecond
			case bit(7):
				st.Canary.PauseStartTime = &metav1.MicroTime{Time: start.Add(-1500 * time.Millisecond)}
			default: // as upstream writes a pause: no precise start
				st.Canary.PauseStartTime = nil
			}
		}
		s.now = s.now.Add(time.Duration(after % int64(200*365*24*time.Hour)))
		in := s.input("v2")
		out := s.plan(in)
		n := int32(len(steps))
		if i := out.Status.CurrentStepIndex; i == nil || *i < 0 || *i > n {
			t.Fatalf("step index %v out of 0..%d", i, n)
		}
		if out.RequeueAfter < 0 {
			t.Fatalf("requeue after %v", out.RequeueAfter)
		}
		if i := in.Rollout.Status.CurrentStepIndex; i != nil && *i >= 0 && *i < n && st.CurrentPodHash == "v2" && st.StableRS != "v2" && !st.Abort {
			if p := steps[*i].Pause; p != nil && p.Duration != nil && len(st.PauseConditions) == 1 && *out.Status.CurrentStepIndex > *i {
				d, _ := PauseDuration(p.Duration)
				if end := st.PauseConditions[0].StartTime.Add(slack).Add(*d); s.now.Before(end) {
					t.Fatalf("pause %s at step %d started %v (precise %v) ended at %v, before %v",
						p.Duration.String(), *i, st.PauseConditions[0].StartTime, st.Canary.PauseStartTime, s.now, end)
				}
			}
		}
		s.apply("v2", out)
		s.run("v2", time.Minute) // and on: never a panic
	})
}

// FuzzBudget: maxSurge and maxUnavailable as any int or string ("25%",
// "x%", "-1%", "1e10%", digits past an int) resolve within range or are an
// error; blue-green's restart budget never panics either.
func FuzzBudget(f *testing.F) {
	for _, s := range []string{"25%", "0%", "100%", "x%", "-1%", "1e10%", "9223372036854775807%", "99999999999%", "%", "", "5", "1.5%"} {
		f.Add(int32(10), s, "25%", int32(0), uint8(0))
		f.Add(int32(3), "1", s, int32(0), uint8(1))
	}
	f.Add(int32(math.MaxInt32), "100%", "100%", int32(math.MaxInt32), uint8(3))
	f.Add(int32(-5), "", "", int32(-1), uint8(2))
	f.Fuzz(func(t *testing.T, n int32, surgeS, unavS string, i int32, kinds uint8) {
		v := func(s string, asInt bool) *intstr.IntOrString {
			if asInt {
				x := intstr.FromInt32(i)
				return &x
			}
			x := intstr.FromString(s)
			return &x
		}
		surge, unav := v(surgeS, kinds&1 != 0), v(unavS, kinds&2 != 0)
		gs, gu, err := Budget(n, surge, unav)
		if err == nil {
			switch {
			case gs < 0, gu < 0, gu > max(n, 0):
				t.Fatalf("Budget(%d, %s, %s) = %d, %d", n, surge.String(), unav.String(), gs, gu)
			case n > 0 && gs == 0 && gu == 0:
				t.Fatalf("Budget(%d, %s, %s) = 0, 0: nothing may move", n, surge.String(), unav.String())
			}
		}
		r := blueGreenRun{base: base{n: max(n, 0)}, b: &rampv1.BlueGreenStrategy{MaxUnavailable: unav}}
		if got := r.restartUnavailable(); got < 0 || got > max(n, 0) {
			t.Fatalf("restartUnavailable(%d, %s) = %d", n, unav.String(), got)
		}
	})
}
