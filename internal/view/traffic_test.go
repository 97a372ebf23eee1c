package view

import (
	"reflect"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestTrafficOf: the routers configured with their objects, the weights
// of status.canary.weights, and the header and mirror routes the steps up
// to the current one put in place (a route removed by a later step is
// gone; none after an abort or outside an update); nil without routing.
func TestTrafficOf(t *testing.T) {
	mk := func(idx int32) *rampv1.Rollout {
		ro := planRollout(4, canaryOf(
			setW(10),
			rampv1.CanaryStep{SetHeaderRoute: &rampv1.SetHeaderRoute{Name: "beta", Match: []rampv1.HeaderRoutingMatch{{HeaderName: "X-Beta", HeaderValue: &rampv1.StringMatch{Exact: "yes"}}}}},
			rampv1.CanaryStep{SetMirrorRoute: &rampv1.SetMirrorRoute{Name: "shadow", Percentage: ptrTo[int32](25),
				Match: []rampv1.RouteMatch{{Method: &rampv1.StringMatch{Exact: "GET"}, Path: &rampv1.StringMatch{Prefix: "/api"}}}}},
			pause(""),
			rampv1.CanaryStep{SetHeaderRoute: &rampv1.SetHeaderRoute{Name: "beta"}},
		))
		c := ro.Spec.Strategy.Canary
		c.TrafficRouting = &rampv1.RolloutTrafficRouting{
			Istio:         &rampv1.IstioTrafficRouting{VirtualService: &rampv1.IstioVirtualService{Name: "web-vs"}},
			SMI:           &rampv1.SMITrafficRouting{},
			ManagedRoutes: []rampv1.ManagedRoute{{Name: "shadow"}, {Name: "beta"}},
		}
		updatingAt(ro, idx)
		ro.Status.Canary.Weights = &rampv1.TrafficWeights{
			Canary: rampv1.WeightDestination{Weight: 10, ServiceName: "web-canary", PodTemplateHash: "b"},
			Stable: rampv1.WeightDestination{Weight: 90, ServiceName: "web-stable", PodTemplateHash: "a"},
		}
		return ro
	}
	got := TrafficOf(mk(3))
	wantRouters := []Router{{Name: "istio", Objects: []string{"VirtualService web-vs"}}, {Name: "smi", Objects: []string{"TrafficSplit web"}}}
	if !reflect.DeepEqual(got.Routers, wantRouters) {
		t.Errorf("routers %+v, want %+v", got.Routers, wantRouters)
	}
	if w := got.Weights; w == nil || w.Canary != (rampv1.WeightDestination{Weight: 10, ServiceName: "web-canary", PodTemplateHash: "b"}) ||
		w.Stable.Weight != 90 || got.MaxWeight != 100 {
		t.Errorf("weights %+v (max %d), want canary 10 and stable 90 of 100", w, got.MaxWeight)
	}
	wantRoutes := []Route{
		{Name: "beta", Kind: "header", Match: `header X-Beta exact "yes"`},
		{Name: "shadow", Kind: "mirror", Match: `method exact "GET" and path prefix "/api": 25% mirrored to the canary`},
	}
	if !reflect.DeepEqual(got.Routes, wantRoutes) || !reflect.DeepEqual(got.Managed, []string{"shadow", "beta"}) {
		t.Errorf("routes %+v managed %v, want %+v", got.Routes, got.Managed, wantRoutes)
	}
	if r := TrafficOf(mk(4)).Routes; len(r) != 1 || r[0].Name != "shadow" {
		t.Errorf("after the step removing beta, routes %+v, want shadow only", r)
	}
	if r := TrafficOf(mk(0)).Routes; len(r) != 0 {
		t.Errorf("at step 1, routes %+v, want none yet", r)
	}
	aborted := mk(3)
	aborted.Status.Abort = true
	if r := TrafficOf(aborted).Routes; len(r) != 0 {
		t.Errorf("aborted, routes %+v, want none", r)
	}
	if tr := TrafficOf(planRollout(2, canaryOf(setW(50)))); tr != nil {
		t.Errorf("without trafficRouting, traffic %+v, want nil", tr)
	}
}

// TestHPAOf: min (1 by default), max, current and desired replicas, each
// metric's current value against its target in the target's terms ("?"
// before it was measured), the conditions that are not True; and which
// HPAs target a Rollout.
func TestHPAOf(t *testing.T) {
	q := resource.MustParse
	h := &autoscalingv2.HorizontalPodAutoscaler{
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "argoproj.io/v1alpha1", Kind: "Rollout", Name: "web"},
			MaxReplicas:    10,
			Metrics: []autoscalingv2.MetricSpec{
				{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU,
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptrTo[int32](54)}}},
				{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{Metric: autoscalingv2.MetricIdentifier{Name: "rps"},
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptrTo(q("100"))}}},
				{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{Metric: autoscalingv2.MetricIdentifier{Name: "queue"},
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: ptrTo(q("30"))}}},
			},
		},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{
			CurrentReplicas: 4, DesiredReplicas: 5,
			CurrentMetrics: []autoscalingv2.MetricStatus{
				{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU,
					Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptrTo[int32](71), AverageValue: ptrTo(q("140m"))}}},
				{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricStatus{Metric: autoscalingv2.MetricIdentifier{Name: "rps"},
					Current: autoscalingv2.MetricValueStatus{AverageValue: ptrTo(q("120"))}}},
			},
			Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
				{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue},
				{Type: autoscalingv2.ScalingLimited, Status: corev1.ConditionFalse, Reason: "DesiredWithinRange", Message: "the desired count is within range"},
			},
		},
	}
	h.Name = "web"
	want := HPA{Name: "web", Min: 1, Max: 10, Current: 4, Desired: 5,
		Metrics: []HPAMetric{
			{Name: "cpu", Current: "71%", Target: "54% (average utilization)"},
			{Name: "pods rps", Current: "120", Target: "100 (average value)"},
			{Name: "external queue", Current: "?", Target: "30 (value)"},
		},
		Conditions: []string{"ScalingLimited: DesiredWithinRange: the desired count is within range"},
	}
	if got := HPAOf(h); !reflect.DeepEqual(got, want) {
		t.Errorf("HPAOf\n %+v, want\n %+v", got, want)
	}
	if !TargetsRollout(h, "web") || TargetsRollout(h, "db") {
		t.Error("TargetsRollout does not select the HPA of Rollout web only")
	}
	h.Spec.ScaleTargetRef.APIVersion, h.Spec.ScaleTargetRef.Kind = "apps/v1", "Deployment"
	if TargetsRollout(h, "web") {
		t.Error("an HPA of Deployment web targets Rollout web")
	}
}
