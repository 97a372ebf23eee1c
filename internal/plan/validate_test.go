package plan

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func TestValidateRollout(t *testing.T) {
	valid := func() *rampv1.Rollout {
		ro := &rampv1.Rollout{}
		ro.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
		ro.Spec.Template = &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}
		ro.Spec.Strategy.Canary = &rampv1.CanaryStrategy{Steps: []rampv1.CanaryStep{weight(20), pauseForever()}}
		return ro
	}
	bad := intstr.FromString("10x")
	for _, tc := range []struct {
		name   string
		edit   func(*rampv1.Rollout)
		want   []string
		first  string // ValidateTemplate
		second string // ValidateStrategy
	}{
		{name: "valid", edit: func(*rampv1.Rollout) {}},
		{name: "no template", edit: func(ro *rampv1.Rollout) { ro.Spec.Template = nil },
			want: []string{"spec.template: required"}, first: "spec.template: required"},
		{name: "workloadRef to a Deployment", edit: func(ro *rampv1.Rollout) {
			ro.Spec.Template, ro.Spec.WorkloadRef = nil, &rampv1.ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "d", ScaleDown: rampv1.ScaleDownOnSuccess}
		}},
		{name: "workloadRef to a StatefulSet", edit: func(ro *rampv1.Rollout) {
			ro.Spec.Template, ro.Spec.WorkloadRef = nil, &rampv1.ObjectRef{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "d"}
		},
			want:  []string{`spec.workloadRef: kind "StatefulSet", apiVersion "apps/v1": is not supported by this version of Ramp (only an apps/v1 Deployment)`},
			first: `spec.workloadRef: kind "StatefulSet", apiVersion "apps/v1": is not supported by this version of Ramp (only an apps/v1 Deployment)`},
		{name: "workloadRef scaleDown", edit: func(ro *rampv1.Rollout) {
			ro.Spec.Template, ro.Spec.WorkloadRef = nil, &rampv1.ObjectRef{Kind: "Deployment", Name: "d", ScaleDown: "later"}
		},
			want:  []string{`spec.workloadRef.scaleDown: "later" must be never, onsuccess or progressively`},
			first: `spec.workloadRef.scaleDown: "later" must be never, onsuccess or progressively`},
		{name: "empty selector", edit: func(ro *rampv1.Rollout) { ro.Spec.Selector = &metav1.LabelSelector{} },
			want: []string{"spec.selector: " + rampv1.RolloutMessageSelectAll}, first: "spec.selector: " + rampv1.RolloutMessageSelectAll},
		{name: "selector mismatch", edit: func(ro *rampv1.Rollout) { ro.Spec.Template.Labels = map[string]string{"app": "other"} },
			want:  []string{`spec.selector "app=web" does not match spec.template.metadata.labels`},
			first: `spec.selector "app=web" does not match spec.template.metadata.labels`},
		{name: "every bad step, template first", edit: func(ro *rampv1.Rollout) {
			ro.Spec.Template = nil
			ro.Spec.Strategy.Canary.Steps = []rampv1.CanaryStep{
				{Pause: &rampv1.RolloutPause{Duration: &bad}}, weight(10),
				{SetHeaderRoute: &rampv1.SetHeaderRoute{Name: "h"}}, {Analysis: &rampv1.RolloutAnalysis{}}}
		}, want: []string{
			"spec.template: required",
			`spec.strategy.canary.steps[0].pause.duration "10x": time: unknown unit "x" in duration "10x"`,
			"spec.strategy.canary.steps[2].setHeaderRoute: needs spec.strategy.canary.trafficRouting",
			"spec.strategy.canary.steps[3].analysis.templates: at least one template is required",
		}, first: "spec.template: required",
			second: `spec.strategy.canary.steps[0].pause.duration "10x": time: unknown unit "x" in duration "10x"`},
		{name: "experiment steps", edit: func(ro *rampv1.Rollout) {
			weighted := experimentStep()
			weighted.Experiment.Templates[1].Weight = ptrTo(int32(5))
			badRef := experimentStep()
			badRef.Experiment.Templates[0].SpecRef = "preview"
			ro.Spec.Strategy.Canary.Steps = []rampv1.CanaryStep{experimentStep(), weighted, badRef,
				{Experiment: &rampv1.RolloutExperimentStep{}}}
		}, want: []string{
			"spec.strategy.canary.steps[1].experiment.templates[1].weight: weighted experiment templates (traffic to the Experiment's pods) are not supported by this version of Ramp",
			`spec.strategy.canary.steps[2].experiment.templates[0].specRef: "preview" must be stable or canary`,
			"spec.strategy.canary.steps[3].experiment.templates: at least one template is required",
		}, second: "spec.strategy.canary.steps[1].experiment.templates[1].weight: weighted experiment templates (traffic to the Experiment's pods) are not supported by this version of Ramp"},
		{name: "mirror route not in managedRoutes, no services", edit: func(ro *rampv1.Rollout) {
			ro.Spec.Strategy.Canary.TrafficRouting = &rampv1.RolloutTrafficRouting{Istio: &rampv1.IstioTrafficRouting{}}
			ro.Spec.Strategy.Canary.Steps = []rampv1.CanaryStep{{SetMirrorRoute: &rampv1.SetMirrorRoute{Name: "m"}}}
		}, want: []string{"spec.strategy.canary.canaryService: required with trafficRouting",
			"spec.strategy.canary.stableService: required with trafficRouting",
			`spec.strategy.canary.steps[0].setMirrorRoute.name: "m" is not listed in spec.strategy.canary.trafficRouting.managedRoutes`},
			second: "spec.strategy.canary.canaryService: required with trafficRouting"},
		{name: "istio subset routing needs no services", edit: func(ro *rampv1.Rollout) {
			ro.Spec.Strategy.Canary.TrafficRouting = &rampv1.RolloutTrafficRouting{Istio: &rampv1.IstioTrafficRouting{
				DestinationRule: &rampv1.IstioDestinationRule{Name: "dr", CanarySubsetName: "c", StableSubsetName: "s"}}}
		}},
		{name: "nginx needs both services", edit: func(ro *rampv1.Rollout) {
			ro.Spec.Strategy.Canary.StableService = "s"
			ro.Spec.Strategy.Canary.TrafficRouting = &rampv1.RolloutTrafficRouting{Nginx: &rampv1.NginxTrafficRouting{StableIngress: "i"}}
		}, want: []string{"spec.strategy.canary.canaryService: required with trafficRouting"},
			second: "spec.strategy.canary.canaryService: required with trafficRouting"},
		{name: "mirror route on a router that cannot", edit: func(ro *rampv1.Rollout) {
			c := ro.Spec.Strategy.Canary
			c.CanaryService, c.StableService = "c", "s"
			c.TrafficRouting = &rampv1.RolloutTrafficRouting{Nginx: &rampv1.NginxTrafficRouting{StableIngress: "i"},
				ManagedRoutes: []rampv1.ManagedRoute{{Name: "m"}}}
			c.Steps = []rampv1.CanaryStep{{SetMirrorRoute: &rampv1.SetMirrorRoute{Name: "m"}}}
		}, want: []string{"spec.strategy.canary.steps[0].setMirrorRoute: the nginx traffic router cannot express mirror routes"},
			second: "spec.strategy.canary.steps[0].setMirrorRoute: the nginx traffic router cannot express mirror routes"},
		{name: "blue-green analysis", edit: func(ro *rampv1.Rollout) {
			ro.Spec.Strategy = rampv1.RolloutStrategy{BlueGreen: &rampv1.BlueGreenStrategy{ActiveService: "a", PostPromotionAnalysis: &rampv1.RolloutAnalysis{}}}
		}, want: []string{"spec.strategy.blueGreen.postPromotionAnalysis.templates: at least one template is required"},
			second: "spec.strategy.blueGreen.postPromotionAnalysis.templates: at least one template is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ro := valid()
			tc.edit(ro)
			if got := ValidateRollout(ro); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ValidateRollout:\n got %q\nwant %q", got, tc.want)
			}
			if got := ValidateTemplate(ro); got != tc.first {
				t.Errorf("ValidateTemplate = %q, want %q", got, tc.first)
			}
			if got := ValidateStrategy(ro); got != tc.second {
				t.Errorf("ValidateStrategy = %q, want %q", got, tc.second)
			}
		})
	}
}
