package view

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// The golden scenarios, by golden file name.
var scenarios = map[string]func() *world{
	"canary-paused":     canaryPaused,
	"bluegreen-preview": blueGreenPreview,
	"canary-aborted":    canaryAborted,
	"analysis-failed":   analysisFailed,
}

func canarySteps() []rampv1.CanaryStep {
	return []rampv1.CanaryStep{
		{SetWeight: ptr.To[int32](20)},
		{Pause: &rampv1.RolloutPause{}},
		{SetWeight: ptr.To[int32](50)},
		{Pause: &rampv1.RolloutPause{Duration: ptr.To(intstr.FromString("10m"))}},
	}
}

// canaryPaused: revision 3 at 20%, paused at step 1 until promoted; one
// stable pod restarted twice; revision 1 scaled down.
func canaryPaused() *world {
	ro := newRollout("checkout", 5, 3*24*time.Hour)
	ro.Spec.Strategy.Canary = &rampv1.CanaryStrategy{Steps: canarySteps()}
	ro.Status.CurrentStepIndex = ptr.To[int32](1)
	ro.Status.StableRS, ro.Status.CurrentPodHash = "6d4f8b7c9", "7b9c5d4f8"
	ro.Status.Phase, ro.Status.Message = rampv1.RolloutPhasePaused, "CanaryPauseStep"
	ro.Status.PauseConditions = []rampv1.PauseCondition{{Reason: rampv1.PauseReasonCanaryPauseStep, StartTime: ago(40 * time.Second)}}
	counts(ro, 5, 1, 5, 5)
	w := &world{ro: ro}
	w.addRS("5c8d9f6b7", 1, "shop/checkout:1.24", 0, 0, 3*24*time.Hour)
	stable := w.addRS("6d4f8b7c9", 2, "shop/checkout:1.25", 4, 3, 26*time.Hour)
	stable.Status.ReadyReplicas, stable.Status.AvailableReplicas = 4, 4
	w.addPod(stable, 3, 90*time.Minute, runningPod(true, 2))
	w.addRS("7b9c5d4f8", 3, "shop/checkout:1.26", 1, 1, 65*time.Second)
	w.addRun("checkout-7b9c5d4f8-3", "7b9c5d4f8", 3, rampv1.AnalysisPhaseRunning, 2, 0, 60*time.Second)
	return w
}

// blueGreenPreview: revision 2 on the preview Service waiting for promotion,
// revision 1 active; its pre-promotion analysis passed.
func blueGreenPreview() *world {
	ro := newRollout("payments", 3, 5*time.Hour)
	ro.Spec.Strategy.BlueGreen = &rampv1.BlueGreenStrategy{
		ActiveService: "payments-active", PreviewService: "payments-preview", AutoPromotionEnabled: ptr.To(false),
	}
	ro.Status.StableRS, ro.Status.CurrentPodHash = "84c6d5b9f", "9f7d6c5b4"
	ro.Status.BlueGreen.ActiveSelector, ro.Status.BlueGreen.PreviewSelector = "84c6d5b9f", "9f7d6c5b4"
	ro.Status.Phase, ro.Status.Message = rampv1.RolloutPhasePaused, "BlueGreenPause"
	ro.Status.PauseConditions = []rampv1.PauseCondition{{Reason: rampv1.PauseReasonBlueGreenPause, StartTime: ago(2 * time.Minute)}}
	counts(ro, 6, 3, 6, 6)
	w := &world{ro: ro}
	w.addRS("84c6d5b9f", 1, "shop/payments:2.0", 3, 3, 5*time.Hour)
	w.addRS("9f7d6c5b4", 2, "shop/payments:2.1", 3, 3, 4*time.Minute)
	w.addRun("payments-9f7d6c5b4-2-pre", "9f7d6c5b4", 2, rampv1.AnalysisPhaseSuccessful, 3, 0, 3*time.Minute)
	return w
}

// canaryAborted: revision 2 aborted at step 2; its pod is terminating.
func canaryAborted() *world {
	ro := newRollout("search", 4, 2*time.Hour)
	ro.Spec.Strategy.Canary = &rampv1.CanaryStrategy{Steps: canarySteps()}
	ro.Status.CurrentStepIndex = ptr.To[int32](0)
	ro.Status.StableRS, ro.Status.CurrentPodHash = "5f6b7c8d9", "6c7d8e9f5"
	ro.Status.Abort, ro.Status.AbortedAt = true, ptr.To(ago(20*time.Second))
	ro.Status.Phase = rampv1.RolloutPhaseDegraded
	ro.Status.Message = "RolloutAborted: Rollout aborted update to revision 2"
	counts(ro, 5, 0, 4, 4)
	w := &world{ro: ro}
	w.addRS("5f6b7c8d9", 1, "shop/search:3.1", 4, 4, 2*time.Hour)
	canary := w.addRS("6c7d8e9f5", 2, "shop/search:3.2", 0, 0, 6*time.Minute)
	canary.Status.Replicas = 1
	p := w.addPod(canary, 0, 6*time.Minute, runningPod(true, 0))
	p.DeletionTimestamp = ptr.To(ago(15 * time.Second))
	return w
}

// analysisFailed: revision 2 (Nginx-routed) aborted by a failed step
// analysis; the canary crash-loops and waits out its abort scale-down delay.
func analysisFailed() *world {
	ro := newRollout("catalog", 4, 10*24*time.Hour)
	steps := append([]rampv1.CanaryStep{{SetWeight: ptr.To[int32](10)}, {Analysis: &rampv1.RolloutAnalysis{}}}, canarySteps()...)
	ro.Spec.Strategy.Canary = &rampv1.CanaryStrategy{
		Steps: steps, CanaryService: "catalog-canary", StableService: "catalog-stable",
		TrafficRouting: &rampv1.RolloutTrafficRouting{Nginx: &rampv1.NginxTrafficRouting{StableIngress: "catalog"}},
	}
	ro.Status.CurrentStepIndex = ptr.To[int32](1)
	ro.Status.StableRS, ro.Status.CurrentPodHash = "b5c6d7e8f", "c4d5e6f7b"
	ro.Status.Abort, ro.Status.AbortedAt = true, ptr.To(ago(5*time.Second))
	ro.Status.Canary.Weights = &rampv1.TrafficWeights{
		Canary: rampv1.WeightDestination{Weight: 0, ServiceName: "catalog-canary", PodTemplateHash: "c4d5e6f7b"},
		Stable: rampv1.WeightDestination{Weight: 100, ServiceName: "catalog-stable", PodTemplateHash: "b5c6d7e8f"},
	}
	ro.Status.Phase = rampv1.RolloutPhaseDegraded
	ro.Status.Message = `RolloutAborted: Rollout aborted update to revision 2: Metric "success-rate" assessed Failed due to failed (3) > failureLimit (2)`
	counts(ro, 5, 1, 4, 4)
	w := &world{ro: ro}
	w.addRS("b5c6d7e8f", 1, "shop/catalog:7.3", 4, 4, 10*24*time.Hour)
	canary := w.addRS("c4d5e6f7b", 2, "shop/catalog:7.4", 1, 0, 3*time.Minute)
	canary.Annotations[rampv1.ScaleDownDeadlineAnnotation] = now.Add(25 * time.Second).Format(time.RFC3339)
	w.addPod(canary, 0, 3*time.Minute, waitingPod("CrashLoopBackOff", 4))
	w.addRun("catalog-b5c6d7e8f-1-1", "b5c6d7e8f", 1, rampv1.AnalysisPhaseSuccessful, 5, 0, 10*24*time.Hour)
	w.addRun("catalog-c4d5e6f7b-2-1", "c4d5e6f7b", 2, rampv1.AnalysisPhaseFailed, 1, 3, 2*time.Minute)
	return w
}

// TestScenariosShowTheirState: each fixture world renders the state it is
// named for (so a golden regenerated from a broken fixture is caught).
func TestScenariosShowTheirState(t *testing.T) {
	want := map[string]string{
		"canary-paused": "Paused", "bluegreen-preview": "Paused",
		"canary-aborted": "Degraded", "analysis-failed": "Degraded",
	}
	for name, build := range scenarios {
		v := build().view()
		if v.Name == "" || len(v.Revisions) == 0 {
			t.Errorf("%s: empty view", name)
		}
		if w, ok := want[name]; ok && v.Status.Name != w {
			t.Errorf("%s: status %q, want %q", name, v.Status.Name, w)
		}
	}
}
