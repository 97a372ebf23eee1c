package plan

import (
	"slices"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// seed000Steps: setWeight 75, pause, setWeight 100, pause (seed 000).
func seed000Steps() []rampv1.CanaryStep {
	return []rampv1.CanaryStep{weight(75), pauseForever(), weight(100), pauseForever()}
}

// newHPASim is seed 000's Rollout: 4 replicas, traffic-routed, an HPA "web"
// targeting it, optionally opted out with hpa-accounting: surge.
func newHPASim(t *testing.T, surge bool) *routedSim {
	s := newRoutedSimN(t, 4, false, seed000Steps()...)
	s.hpas = []string{"web"}
	if surge {
		s.ro.Annotations = map[string]string{rampv1.HPAAccountingAnnotation: rampv1.HPAAccountingSurge}
	}
	s.run("v1", time.Minute)
	return s
}

// pods is every pod the ReplicaSets hold: what the HPA's selector matches.
func (s *routedSim) pods() int32 {
	var n int32
	for _, r := range s.rs {
		n += r.Spec
	}
	return n
}

// promote resumes the current pause step.
func (s *routedSim) promote() { s.ro.Status.PauseConditions = nil }

// TestHPATakesCanaryFromStable walks seed 000 with an HPA: the canary's pods
// come from stable (1+3 at 75%, 1+4 at 100%: stable keeps
// minPodsPerReplicaSet), so the HPA never sees more than replicas+1 pods
// and, at 75%, exactly replicas;
// with hpa-accounting: surge the stable stays at 4 beside the canary.
func TestHPATakesCanaryFromStable(t *testing.T) {
	for _, tc := range []struct {
		name      string
		surge     bool
		at75      string
		at100     string
		maxPods   int32
		condition string
	}{
		{name: "hpa", at75: "v1=1 v2=3", at100: "v1=1 v2=4", maxPods: 5, condition: rampv1.HPAReasonFromStable},
		{name: "surge", surge: true, at75: "v1=4 v2=3", at100: "v1=4 v2=4", maxPods: 8, condition: rampv1.HPAReasonSurge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newHPASim(t, tc.surge)
			var most int32
			var events []Event
			s.each = func(in Input, out Output) {
				most = max(most, s.pods())
				events = append(events, out.Events...)
				if st := in.Stable; st != nil && out.Route.StableHash == st.Hash && out.Route.Stable() > s.stableCapacity(st.Available) {
					t.Errorf("%s: route gives stable %d with %d pods available", s.at(), out.Route.Stable(), st.Available)
				}
			}
			s.run("v2", time.Minute)
			if got := s.sizeString(); got != tc.at75 || s.traffic.Route.Canary != 75 {
				t.Errorf("at the 75%% pause: sizes %s, route %+v; want %s", got, s.traffic.Route, tc.at75)
			}
			s.promote()
			s.run("v2", time.Minute)
			if got := s.sizeString(); got != tc.at100 || s.traffic.Route.Canary != 100 {
				t.Errorf("at the 100%% pause: sizes %s, route %+v; want %s", got, s.traffic.Route, tc.at100)
			}
			s.promote()
			s.run("v2", 2*time.Minute)
			s.expectEnd("v2", 4, "v1", handoverRoute("v2"))
			if most != tc.maxPods {
				t.Errorf("the HPA saw up to %d pods, want %d", most, tc.maxPods)
			}
			c := findCondition(&s.ro.Status, rampv1.RolloutHPAAccounting)
			if c == nil || c.Reason != tc.condition {
				t.Fatalf("HPAAccounting condition %+v, want reason %s", c, tc.condition)
			}
			var said []string
			for _, e := range events {
				if e.Reason == tc.condition {
					said = append(said, e.Message)
				}
			}
			if len(said) != 0 {
				t.Errorf("the accounting Event was repeated during the update: %q", said)
			}
		})
	}
}

// TestHPAAccountingEvent: the first pass with an HPA says, once, how its
// pods are counted; the condition goes when the HPA does.
func TestHPAAccountingEvent(t *testing.T) {
	s := newRoutedSimN(t, 4, false, seed000Steps()...)
	s.run("v1", time.Minute)
	if c := findCondition(&s.ro.Status, rampv1.RolloutHPAAccounting); c != nil {
		t.Fatalf("no HPA, yet condition %+v", c)
	}
	s.hpas = []string{"web"}
	out := Canary(s.input("v1"))
	want := Event{Reason: rampv1.HPAReasonFromStable, Message: "HPA web targets this rollout: canary pods are taken from stable"}
	if !slices.Contains(out.Events, want) {
		t.Errorf("events %+v, want %+v", out.Events, want)
	}
	s.ro.Status = out.Status
	if again := Canary(s.input("v1")); len(again.Events) != 0 {
		t.Errorf("second pass repeats events %+v", again.Events)
	}
	s.hpas = nil
	if out := Canary(s.input("v1")); findCondition(&out.Status, rampv1.RolloutHPAAccounting) != nil {
		t.Errorf("HPA gone, condition kept: %+v", out.Status.Conditions)
	}
}

// TestHPAAbortRefillsStable: an abort at 100% grows stable back before the
// route gives it traffic, within replicas+1 pods.
func TestHPAAbortRefillsStable(t *testing.T) {
	s := newHPASim(t, false)
	s.run("v2", time.Minute)
	s.promote()
	s.run("v2", time.Minute)
	s.ro.Status.Abort = true
	s.each = func(in Input, out Output) {
		if p := s.pods(); p > 5 {
			t.Errorf("%s: %d pods during the abort", s.at(), p)
		}
		if st := in.Stable; st != nil && out.Route.StableHash == st.Hash && out.Route.Stable() > s.stableCapacity(st.Available) {
			t.Errorf("%s: route gives stable %d with %d pods available", s.at(), out.Route.Stable(), st.Available)
		}
	}
	s.run("v2", 2*time.Minute)
	s.expectEnd("v1", 4, "v2", handoverRoute("v1"))
}

// TestHPARescaleMidCanary: the HPA changes spec.replicas during the 75%
// pause; the split is recomputed from the new total at once, the step stays.
func TestHPARescaleMidCanary(t *testing.T) {
	s := newHPASim(t, false)
	s.run("v2", time.Minute)
	for _, tc := range []struct {
		replicas int32
		sizes    string
	}{
		{6, "v1=1 v2=5"}, // ceil(0.75 x 6) = 5 canary, 6 - 5 = 1 stable: the HPA counts 6
		{4, "v1=1 v2=3"},
	} {
		s.ro.Spec.Replicas = &tc.replicas
		s.ro.Generation++
		s.run("v2", time.Minute)
		if got := s.sizeString(); got != tc.sizes || *s.ro.Status.CurrentStepIndex != 1 || s.traffic.Route.Canary != 75 {
			t.Errorf("replicas %d: sizes %s, step %d, route %+v; want %s at step 1, weight 75",
				tc.replicas, got, *s.ro.Status.CurrentStepIndex, s.traffic.Route, tc.sizes)
		}
	}
}

// stableCapacity is the most stable weight k stable pods may carry while
// canary pods are taken from stable: the largest ws whose split leaves
// stable at most k pods, replicas - ceil((100-ws) x replicas / 100), with
// one pod at least while it carries anything (found by search, not by the
// planner's formula).
func (s *routedSim) stableCapacity(k int32) int32 {
	n := *s.ro.Spec.Replicas
	for ws := int32(100); ws > 0; ws-- {
		if max(n-(((100-ws)*n+99)/100), 1) <= k {
			return ws
		}
	}
	return 0
}

// TestHPASetCanaryScaleAtWeightZero: a setCanaryScale before any weight
// with an HPA: the stable still carries all the traffic, so it stays full
// beside the 3 canary pods instead of stalling at replicas+1.
func TestHPASetCanaryScaleAtWeightZero(t *testing.T) {
	s := newRoutedSimN(t, 10, false, rampv1.CanaryStep{SetCanaryScale: &rampv1.SetCanaryScale{Replicas: ptrTo(int32(3))}}, pauseForever())
	s.hpas = []string{"web"}
	s.run("v1", time.Minute)
	s.run("v2", time.Minute)
	if got := s.sizeString(); got != "v1=10 v2=3" || *s.ro.Status.CurrentStepIndex != 1 || s.traffic.Route.Canary != 0 {
		t.Errorf("sizes %s at step %d, route %+v; want v1=10 v2=3 paused at step 1, weight 0", got, *s.ro.Status.CurrentStepIndex, s.traffic.Route)
	}
}
