package plan

import (
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func newBlueGreen(t *testing.T, replicas int32, bg rampv1.BlueGreenStrategy) *sim {
	s := newSim(t, replicas)
	s.ro.Spec.Strategy.Canary = nil
	bg.ActiveService, bg.PreviewService = "active", "preview"
	s.ro.Spec.Strategy.BlueGreen = &bg
	s.plan = BlueGreen
	return s
}

// Seed 003: 5 replicas, manual promotion, default 30 s scale-down delay.
func TestBlueGreenSeed003(t *testing.T) {
	manual := false
	s := newBlueGreen(t, 5, rampv1.BlueGreenStrategy{AutoPromotionEnabled: &manual})
	s.run("v1", time.Minute)
	s.log = nil
	s.run("v2", time.Minute)
	s.expect(`
  0.02s event RolloutUpdated
  0.02s event NewReplicaSetCreated
  0.02s event RolloutNotCompleted
  0.02s v1=5 v2=5 step=- phase=Progressing stable=v1 active=v1 preview=v1
  0.03s event RolloutPaused
  0.03s v1=5 v2=5 step=- phase=Paused stable=v1 active=v1 preview=v2`)
	s.ro.Status.PauseConditions = nil // promote
	s.run("v2", time.Minute)
	s.expect(`
  0.04s event RolloutCompleted
  0.04s v1=5 v2=5 step=- phase=Healthy stable=v2 active=v2 preview=v2
 31.00s v1=0 v2=5 step=- phase=Healthy stable=v2 active=v2 preview=v2`)
}

func TestBlueGreenPreviewReplicaCount(t *testing.T) {
	preview := int32(1)
	s := newBlueGreen(t, 4, rampv1.BlueGreenStrategy{PreviewReplicaCount: &preview})
	s.run("v1", time.Minute)
	s.log = nil
	// The new ReplicaSet comes up at 1 pod, then at full size, and only then
	// does the active Service switch.
	in := s.input("v2")
	out := BlueGreen(in)
	s.apply("v2", out)
	if s.rs["v2"].Spec != 1 || s.ro.Status.BlueGreen.ActiveSelector != "v1" {
		t.Fatalf("preview: v2=%d active=%s", s.rs["v2"].Spec, s.ro.Status.BlueGreen.ActiveSelector)
	}
	out = BlueGreen(s.input("v2")) // preview available: auto-promotion scales to full size
	s.apply("v2", out)
	if s.rs["v2"].Spec != 4 || s.ro.Status.BlueGreen.ActiveSelector != "v1" {
		t.Fatalf("scale-up: v2=%d active=%s (must not switch before full size is available)", s.rs["v2"].Spec, s.ro.Status.BlueGreen.ActiveSelector)
	}
	s.rs["v2"].Available = 3 // not all available yet
	out = BlueGreen(s.input("v2"))
	s.apply("v2", out)
	if s.ro.Status.BlueGreen.ActiveSelector != "v1" {
		t.Fatal("switched active to an under-sized ReplicaSet")
	}
	s.rs["v2"].Available = 4
	s.run("v2", time.Minute)
	if s.ro.Status.BlueGreen.ActiveSelector != "v2" || s.ro.Status.Phase != rampv1.RolloutPhaseHealthy {
		t.Errorf("after full availability: active=%s phase=%s", s.ro.Status.BlueGreen.ActiveSelector, s.ro.Status.Phase)
	}
}

func TestBlueGreenAutoPromotionSeconds(t *testing.T) {
	s := newBlueGreen(t, 2, rampv1.BlueGreenStrategy{AutoPromotionSeconds: 10})
	s.run("v1", time.Minute)
	s.log = nil
	start := s.now
	s.run("v2", 5*time.Second)
	if s.ro.Status.Phase != rampv1.RolloutPhasePaused {
		t.Fatalf("phase %s, want Paused", s.ro.Status.Phase)
	}
	s.run("v2", time.Minute)
	if s.ro.Status.BlueGreen.ActiveSelector != "v2" {
		t.Fatalf("not promoted: active=%s", s.ro.Status.BlueGreen.ActiveSelector)
	}
	if took := s.now.Sub(start); took < 10*time.Second {
		t.Errorf("promoted after %s, before autoPromotionSeconds", took)
	}
}

func TestBlueGreenAbortAndRetry(t *testing.T) {
	manual := false
	abortDelay := int32(5)
	s := newBlueGreen(t, 3, rampv1.BlueGreenStrategy{AutoPromotionEnabled: &manual, AbortScaleDownDelaySeconds: &abortDelay})
	s.run("v1", time.Minute)
	s.run("v2", time.Minute)
	s.log = nil
	s.ro.Status.Abort = true
	s.run("v2", time.Minute)
	st := s.ro.Status
	// the preview Service stays on the aborted ReplicaSet, as upstream
	if st.Phase != rampv1.RolloutPhaseDegraded || st.BlueGreen.ActiveSelector != "v1" || st.BlueGreen.PreviewSelector != "v2" || s.rs["v2"].Spec != 0 {
		t.Fatalf("abort: phase %s active %s preview %s v2=%d", st.Phase, st.BlueGreen.ActiveSelector, st.BlueGreen.PreviewSelector, s.rs["v2"].Spec)
	}
	s.ro.Status.Abort = false
	s.run("v2", time.Minute)
	st = s.ro.Status
	if st.Phase != rampv1.RolloutPhasePaused || s.rs["v2"].Spec != 3 || st.BlueGreen.PreviewSelector != "v2" || s.rs["v2"].ScaleDownAt != nil {
		t.Errorf("retry: phase %s v2=%d preview %s deadline %v", st.Phase, s.rs["v2"].Spec, st.BlueGreen.PreviewSelector, s.rs["v2"].ScaleDownAt)
	}
}
