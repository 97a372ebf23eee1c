package plan

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Seed 003's canary: 5 replicas, 20 / pause / 40 / pause 10 / 60 / pause 10 / 80 / pause 10.
func seedSteps() []rampv1.CanaryStep {
	return []rampv1.CanaryStep{weight(20), pauseForever(), weight(40), pauseFor("10"),
		weight(60), pauseFor("10"), weight(80), pauseFor("10")}
}

func TestCanarySeed003(t *testing.T) {
	s := newSim(t, 5, seedSteps()...)
	s.run("v1", time.Minute)
	s.expect(`
  0.00s event RolloutUpdated
  0.00s event NewReplicaSetCreated
  0.00s event RolloutNotCompleted
  0.00s event RolloutCompleted
  0.00s v1=5 step=8 phase=Progressing stable=v1
  0.01s v1=5 step=8 phase=Healthy stable=v1`)

	s.run("v2", time.Minute)
	s.expect(`
  0.02s event RolloutUpdated
  0.02s event NewReplicaSetCreated
  0.02s event RolloutNotCompleted
  0.02s v1=4 v2=1 step=0 phase=Progressing stable=v1
  0.03s event RolloutStepCompleted
  0.03s event RolloutPaused
  0.03s v1=4 v2=1 step=1 phase=Paused stable=v1`)

	// promote: the plugin clears the pause conditions
	s.ro.Status.PauseConditions = nil
	s.run("v2", time.Minute)
	s.expect(`
  0.04s event RolloutStepCompleted
  0.04s v1=3 v2=2 step=2 phase=Progressing stable=v1
  0.05s event RolloutStepCompleted
  0.05s event RolloutPaused
  0.05s v1=3 v2=2 step=3 phase=Paused stable=v1
 10.05s event RolloutResumed
 10.05s event RolloutStepCompleted
 10.05s v1=2 v2=3 step=4 phase=Progressing stable=v1
 10.06s event RolloutStepCompleted
 10.06s event RolloutPaused
 10.06s v1=2 v2=3 step=5 phase=Paused stable=v1
 20.06s event RolloutResumed
 20.06s event RolloutStepCompleted
 20.06s v1=1 v2=4 step=6 phase=Progressing stable=v1
 20.07s event RolloutStepCompleted
 20.07s event RolloutPaused
 20.07s v1=1 v2=4 step=7 phase=Paused stable=v1
 30.07s event RolloutResumed
 30.07s event RolloutStepCompleted
 30.07s v1=0 v2=5 step=8 phase=Progressing stable=v1
 30.08s event RolloutCompleted
 30.08s v1=0 v2=5 step=8 phase=Progressing stable=v2
 30.09s v1=0 v2=5 step=8 phase=Healthy stable=v2`)
}

func TestCanaryActions(t *testing.T) {
	steps := []rampv1.CanaryStep{weight(20), pauseForever(), weight(60), pauseForever()}
	start := func(t *testing.T) *sim {
		s := newSim(t, 5, steps...)
		s.run("v1", time.Minute)
		s.run("v2", time.Minute)
		s.log = nil
		if s.ro.Status.Phase != rampv1.RolloutPhasePaused || *s.ro.Status.CurrentStepIndex != 1 {
			t.Fatalf("not paused at step 1: %s step %d", s.ro.Status.Phase, *s.ro.Status.CurrentStepIndex)
		}
		return s
	}
	t.Run("abort then retry", func(t *testing.T) {
		s := start(t)
		s.ro.Status.Abort = true
		s.run("v2", time.Minute)
		s.expect(`
  0.04s event RolloutAborted
  0.04s v1=5 v2=0 step=0 phase=Degraded stable=v1`)
		if s.ro.Status.AbortedAt == nil || s.ro.Status.Message != "RolloutAborted: Rollout aborted update to revision 2" {
			t.Errorf("abort status: abortedAt %v message %q", s.ro.Status.AbortedAt, s.ro.Status.Message)
		}
		s.ro.Status.Abort = false // retry
		s.run("v2", time.Minute)
		s.expect(`
  0.06s v1=4 v2=1 step=0 phase=Progressing stable=v1
  0.07s event RolloutStepCompleted
  0.07s event RolloutPaused
  0.07s v1=4 v2=1 step=1 phase=Paused stable=v1`)
	})
	t.Run("promote full", func(t *testing.T) {
		s := start(t)
		s.ro.Status.PromoteFull = true
		s.run("v2", time.Minute)
		if st := s.ro.Status; st.Phase != rampv1.RolloutPhaseHealthy || st.StableRS != "v2" || st.PromoteFull || s.rs["v1"].Spec != 0 {
			t.Errorf("after promote --full: phase %s stable %s promoteFull %v v1=%d", st.Phase, st.StableRS, st.PromoteFull, s.rs["v1"].Spec)
		}
	})
	t.Run("skip-current-step pauses at the next pause step", func(t *testing.T) {
		s := start(t)
		// Argo CD's action: pause conditions cleared, step index advanced,
		// controllerPause left as it was.
		s.ro.Status.PauseConditions, s.ro.Status.CurrentStepIndex = nil, ptrTo(int32(2))
		s.run("v2", time.Minute)
		if st := s.ro.Status; st.Phase != rampv1.RolloutPhasePaused || *st.CurrentStepIndex != 3 || s.rs["v2"].Spec != 3 {
			t.Errorf("after skip: phase %s step %d v2=%d, want paused at step 3 with 3 canary pods", st.Phase, *st.CurrentStepIndex, s.rs["v2"].Spec)
		}
	})
	t.Run("paused before the update: new ReplicaSet created empty", func(t *testing.T) {
		s := newSim(t, 5, steps...)
		s.run("v1", time.Minute)
		s.ro.Spec.Paused = true
		s.run("v1", time.Minute)
		if c := findCondition(&s.ro.Status, rampv1.RolloutHealthy); c == nil || c.Status != corev1.ConditionFalse {
			t.Errorf("paused rollout Healthy %+v, want False", c)
		}
		if c := findCondition(&s.ro.Status, rampv1.RolloutProgressing); c == nil || c.Reason != rampv1.RolloutReasonNewReplicaSetAvailable {
			t.Errorf("paused complete rollout Progressing %+v, want NewReplicaSetAvailable", c)
		}
		s.run("v2", time.Minute)
		if rs := s.rs["v2"]; rs == nil || rs.Spec != 0 || s.ro.Status.Phase != rampv1.RolloutPhasePaused {
			t.Errorf("paused update: v2 %+v phase %s, want an empty ReplicaSet and phase Paused", rs, s.ro.Status.Phase)
		}
	})
	t.Run("undo to stable skips the steps", func(t *testing.T) {
		s := start(t)
		s.run("v1", time.Minute)
		s.expect(`
  0.04s event RolloutUpdated
  0.04s event SkipSteps
  0.04s event RolloutResumed
  0.04s v1=5 v2=0 step=4 phase=Progressing stable=v1
  0.05s v1=5 v2=0 step=4 phase=Healthy stable=v1`)
	})
	t.Run("manual pause holds everything", func(t *testing.T) {
		s := start(t)
		s.ro.Status.PauseConditions = nil // promote...
		s.ro.Spec.Paused = true           // ...but paused by the user
		s.run("v2", time.Minute)
		if st := s.ro.Status; st.Phase != rampv1.RolloutPhasePaused || st.Message != "manually paused" || s.rs["v2"].Spec != 1 {
			t.Errorf("paused rollout moved: phase %s %q v2=%d", st.Phase, st.Message, s.rs["v2"].Spec)
		}
		s.ro.Spec.Paused = false
		s.run("v2", time.Minute)
		if st := s.ro.Status; *st.CurrentStepIndex != 3 || s.rs["v2"].Spec != 3 {
			t.Errorf("after resume: step %d v2=%d, want step 3 with 3 canary pods", *st.CurrentStepIndex, s.rs["v2"].Spec)
		}
	})
	t.Run("new image mid-rollout restarts the steps", func(t *testing.T) {
		s := start(t)
		s.run("v3", time.Minute)
		if st := s.ro.Status; *st.CurrentStepIndex != 1 || s.rs["v2"].Spec != 0 || s.rs["v3"].Spec != 1 || s.rs["v1"].Spec != 4 {
			t.Errorf("v3: step %d v1=%d v2=%d v3=%d", *st.CurrentStepIndex, s.rs["v1"].Spec, s.rs["v2"].Spec, s.rs["v3"].Spec)
		}
	})
}

func TestCanaryInvalidChangesNothing(t *testing.T) {
	s := newSim(t, 5, seedSteps()...)
	s.run("v1", time.Minute)
	in := s.input("v2")
	in.Invalid = `spec.strategy.canary.canaryService: Service "web-canary" not found in namespace "demo"`
	out := Canary(in)
	if out.CreateNew || len(out.Scale) != 0 {
		t.Errorf("invalid spec still scaled: create %v scale %v", out.CreateNew, out.Scale)
	}
	c := findCondition(&out.Status, rampv1.RolloutInvalidSpec)
	if c == nil || c.Status != "True" || c.Message != in.Invalid || out.Status.Phase != rampv1.RolloutPhaseDegraded {
		t.Errorf("status: %+v phase %s", c, out.Status.Phase)
	}
	if len(out.Events) != 1 || !out.Events[0].Warning {
		t.Errorf("events: %+v", out.Events)
	}
	// Fixed: the condition goes away and the rollout proceeds.
	s.ro.Status = out.Status
	s.run("v2", time.Minute)
	if findCondition(&s.ro.Status, rampv1.RolloutInvalidSpec) != nil || s.rs["v2"] == nil {
		t.Error("fixing the spec did not recover the rollout")
	}
}

func TestCanaryProgressDeadline(t *testing.T) {
	s := newSim(t, 2, weight(50))
	deadline := int32(30)
	s.ro.Spec.ProgressDeadlineSeconds = &deadline
	s.run("v1", time.Minute)
	// The new pods are created but never become available.
	s.ro.Status = Canary(s.input("v2")).Status
	s.rs["v2"] = &ReplicaSet{Name: "web-v2", Hash: "v2", Revision: 2, Spec: 1, Replicas: 1}
	s.rs["v1"].Spec = 1
	began := s.now
	for i := 0; i < 100; i++ {
		out := Canary(s.input("v2"))
		s.ro.Status = out.Status
		if out.Status.Phase == rampv1.RolloutPhaseDegraded || out.RequeueAfter == 0 {
			break
		}
		s.now = s.now.Add(out.RequeueAfter)
	}
	c := findCondition(&s.ro.Status, rampv1.RolloutProgressing)
	if s.ro.Status.Phase != rampv1.RolloutPhaseDegraded || c.Reason != rampv1.RolloutReasonProgressDeadlineExceeded {
		t.Fatalf("no deadline: phase %s reason %s", s.ro.Status.Phase, c.Reason)
	}
	if took := s.now.Sub(began); took < 30*time.Second || took > 32*time.Second {
		t.Errorf("deadline declared %s after the last progress, want 30s (+ at most 2s)", took)
	}
	// It stays exceeded, without another Warning, while nothing moves (it
	// used to flip back to Progressing on the next pass and warn again).
	for i := 0; i < 5; i++ {
		s.now = s.now.Add(time.Minute)
		out := Canary(s.input("v2"))
		s.ro.Status = out.Status
		if c := findCondition(&out.Status, rampv1.RolloutProgressing); out.Status.Phase != rampv1.RolloutPhaseDegraded ||
			c.Reason != rampv1.RolloutReasonProgressDeadlineExceeded {
			t.Fatalf("pass %d after the deadline: phase %s, Progressing %s", i, out.Status.Phase, c.Reason)
		}
		for _, e := range out.Events {
			if e.Warning {
				t.Errorf("pass %d after the deadline warned again: %s %s", i, e.Reason, e.Message)
			}
		}
	}
}

// A timed pause must never end before its deadline, and must end right after.
func TestPauseEndsOnTime(t *testing.T) {
	for _, offset := range []time.Duration{0, 3 * time.Millisecond, 400 * time.Millisecond, 999 * time.Millisecond} {
		s := newSim(t, 1, pauseFor("2s"))
		s.run("v1", time.Minute)
		s.now = s.now.Add(offset)
		var began, ended time.Time
		for i := 0; i < 50 && ended.IsZero(); i++ {
			out := Canary(s.input("v2"))
			s.apply("v2", out)
			if began.IsZero() && len(s.ro.Status.PauseConditions) > 0 {
				began = s.now
			}
			if !began.IsZero() && len(s.ro.Status.PauseConditions) == 0 {
				ended = s.now
			}
			d := out.RequeueAfter
			if d == 0 {
				d = 10 * time.Millisecond
			}
			s.now = s.now.Add(d)
		}
		got := ended.Sub(began)
		if got < 2*time.Second || got > 2*time.Second+100*time.Millisecond {
			t.Errorf("offset %s: pause lasted %s, want 2s..2.1s", offset, got)
		}
	}
}

func TestCanaryRollbackWindow(t *testing.T) {
	for _, tc := range []struct {
		window    int32
		wantSteps bool
	}{{0, true}, {1, true}, {2, false}} {
		s := newSim(t, 5, weight(20), pauseForever())
		if tc.window > 0 {
			s.ro.Spec.RollbackWindow = &rampv1.RollbackWindowSpec{Revisions: tc.window}
		}
		s.run("v1", time.Minute)
		s.run("v2", time.Minute)
		s.ro.Status.PauseConditions = nil
		s.run("v2", time.Minute) // v2 stable, v1 revision 1
		s.run("v3", time.Minute)
		s.ro.Status.PauseConditions = nil
		s.run("v3", time.Minute) // v3 stable; v1 is two revisions back
		s.rev++
		s.rs["v1"].Revision = s.rev // the undo renumbers v1 as the newest revision
		s.run("v1", time.Minute)
		ran := s.ro.Status.Phase == rampv1.RolloutPhasePaused
		if ran != tc.wantSteps {
			t.Errorf("window %d: back to revision 1 ran the steps = %v, want %v (phase %s)", tc.window, ran, tc.wantSteps, s.ro.Status.Phase)
		}
	}
}
