package view

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	_ "github.com/ramp-rollouts/ramp/internal/builtin" // the routers the planner accepts
)

// planRollout is a Rollout the planner runs: replicas pods of app:2 with
// strategy s.
func planRollout(replicas int32, s rampv1.RolloutStrategy) *rampv1.Rollout {
	ro := newRollout("web", replicas, 0)
	ro.Spec.Template = &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:2"}}},
	}
	ro.Spec.Strategy = s
	return ro
}

func canaryOf(steps ...rampv1.CanaryStep) rampv1.RolloutStrategy {
	return rampv1.RolloutStrategy{Canary: &rampv1.CanaryStrategy{Steps: steps}}
}

func setW(w int32) rampv1.CanaryStep { return rampv1.CanaryStep{SetWeight: ptr.To(w)} }

func pause(d string) rampv1.CanaryStep {
	p := &rampv1.RolloutPause{}
	if d != "" {
		v := intstr.FromString(d)
		p.Duration = &v
	}
	return rampv1.CanaryStep{Pause: p}
}

// updatingAt puts ro in an update from hash a to b at step idx.
func updatingAt(ro *rampv1.Rollout, idx int32) {
	ro.Status.StableRS, ro.Status.CurrentPodHash, ro.Status.CurrentStepIndex = "a", "b", ptr.To(idx)
}

func blueGreenRollout(replicas int32) *rampv1.Rollout {
	return planRollout(replicas, rampv1.RolloutStrategy{BlueGreen: &rampv1.BlueGreenStrategy{
		ActiveService: "web-active", PreviewService: "web-preview", AutoPromotionEnabled: ptr.To(false)}})
}
