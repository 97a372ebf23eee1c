package dashboard

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	_ "github.com/ramp-rollouts/ramp/internal/builtin" // the routers the planner accepts, as in the CLI
)

// routedWorld is world() with shop/web an Istio-routed canary of 4
// replicas paused at step 3 (a pause after a setHeaderRoute step), its
// weights set at 25/75, and an HPA scaling it; and shop/blue, a blue-green
// update paused for promotion.
func routedWorld() []client.Object {
	objs := world()
	ro := objs[0].(*rampv1.Rollout)
	ro.Spec.Replicas = ptr.To[int32](4)
	ro.Spec.Strategy.Canary = &rampv1.CanaryStrategy{
		CanaryService: "web-canary", StableService: "web-stable",
		TrafficRouting: &rampv1.RolloutTrafficRouting{
			Istio:         &rampv1.IstioTrafficRouting{VirtualService: &rampv1.IstioVirtualService{Name: "web-vs", Routes: []string{"primary"}}},
			ManagedRoutes: []rampv1.ManagedRoute{{Name: "beta"}},
		},
		Steps: []rampv1.CanaryStep{
			{SetWeight: ptr.To[int32](25)},
			{SetHeaderRoute: &rampv1.SetHeaderRoute{Name: "beta", Match: []rampv1.HeaderRoutingMatch{{HeaderName: "X-Beta", HeaderValue: &rampv1.StringMatch{Exact: "yes"}}}}},
			{Pause: &rampv1.RolloutPause{}},
			{SetWeight: ptr.To[int32](50)},
			{Pause: &rampv1.RolloutPause{}},
		},
	}
	ro.Status.CurrentStepIndex = ptr.To[int32](2)
	ro.Status.Canary.Weights = &rampv1.TrafficWeights{
		Canary: rampv1.WeightDestination{Weight: 25, ServiceName: "web-canary", PodTemplateHash: "bbb"},
		Stable: rampv1.WeightDestination{Weight: 75, ServiceName: "web-stable", PodTemplateHash: "aaa"},
	}
	hpa := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web-hpa", Namespace: "shop"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "argoproj.io/v1alpha1", Kind: "Rollout", Name: "web"},
			MinReplicas:    ptr.To[int32](2), MaxReplicas: 8,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](70)}}}},
		},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 4, DesiredReplicas: 5,
			CurrentMetrics: []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{
				Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptr.To[int32](83)}}}}},
	}
	other := hpa.DeepCopy() // scales a Deployment of the same name: not shown
	other.Name, other.Spec.ScaleTargetRef = "web-deploy", autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}
	blue := world()[0].(*rampv1.Rollout)
	blue.Name, blue.UID = "blue", "uid-shop-blue"
	blue.Spec.Strategy = rampv1.RolloutStrategy{BlueGreen: &rampv1.BlueGreenStrategy{ActiveService: "blue-active", AutoPromotionEnabled: ptr.To(false)}}
	blue.Status.CurrentStepIndex = nil
	blue.Status.PauseConditions[0].Reason = rampv1.PauseReasonBlueGreenPause
	blue.Status.BlueGreen.ActiveSelector = "aaa"
	return append(objs, hpa, other, blue)
}
