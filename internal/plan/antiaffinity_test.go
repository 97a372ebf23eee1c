package plan

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func TestInjectAntiAffinity(t *testing.T) {
	own := corev1.PodAffinityTerm{TopologyKey: "zone"}
	withOwn := func() corev1.PodSpec {
		return corev1.PodSpec{Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{own}}}}
	}
	canary := func(a *rampv1.AntiAffinity) *rampv1.Rollout {
		return &rampv1.Rollout{Spec: rampv1.RolloutSpec{Strategy: rampv1.RolloutStrategy{Canary: &rampv1.CanaryStrategy{AntiAffinity: a}}}}
	}
	blueGreen := func(a *rampv1.AntiAffinity) *rampv1.Rollout {
		return &rampv1.Rollout{Spec: rampv1.RolloutSpec{Strategy: rampv1.RolloutStrategy{BlueGreen: &rampv1.BlueGreenStrategy{AntiAffinity: a}}}}
	}
	required := &rampv1.AntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &rampv1.RequiredDuringSchedulingIgnoredDuringExecution{}}
	preferred := &rampv1.AntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: &rampv1.PreferredDuringSchedulingIgnoredDuringExecution{Weight: 7}}
	for _, tc := range []struct {
		name      string
		ro        *rampv1.Rollout
		previous  string
		spec      corev1.PodSpec
		injected  bool
		required  int // required terms after
		preferred int32
	}{
		{name: "none configured", ro: canary(nil), previous: "a", spec: corev1.PodSpec{}},
		{name: "first deploy: nothing to avoid", ro: canary(required), previous: "", spec: corev1.PodSpec{}},
		{name: "required", ro: canary(required), previous: "a", spec: corev1.PodSpec{}, injected: true, required: 1},
		{name: "required beside the template's own", ro: blueGreen(required), previous: "a", spec: withOwn(), injected: true, required: 2},
		{name: "preferred, weight kept", ro: blueGreen(preferred), previous: "a", spec: withOwn(), injected: true, required: 1, preferred: 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := *tc.spec.DeepCopy()
			spec := tc.spec
			if got := InjectAntiAffinity(tc.ro, tc.previous, &spec); got != tc.injected {
				t.Fatalf("injected %v, want %v", got, tc.injected)
			}
			if !tc.injected {
				if !apiequality.Semantic.DeepEqual(spec, before) {
					t.Errorf("spec changed: %+v", spec.Affinity)
				}
				return
			}
			pa := spec.Affinity.PodAntiAffinity
			if len(pa.RequiredDuringSchedulingIgnoredDuringExecution) != tc.required {
				t.Errorf("required terms %+v, want %d", pa.RequiredDuringSchedulingIgnoredDuringExecution, tc.required)
			}
			if tc.preferred > 0 {
				p := pa.PreferredDuringSchedulingIgnoredDuringExecution
				if len(p) != 1 || p[0].Weight != tc.preferred || p[0].PodAffinityTerm.TopologyKey != "kubernetes.io/hostname" || len(p[0].PodAffinityTerm.Namespaces) != 1 ||
					p[0].PodAffinityTerm.LabelSelector.MatchExpressions[0].Values[0] != "a" {
					t.Errorf("preferred terms %+v", p)
				}
			}
			RemoveAntiAffinity(tc.ro.Namespace, &spec)
			if !apiequality.Semantic.DeepEqual(spec, before) {
				t.Errorf("after RemoveAntiAffinity: %+v, want %+v", spec.Affinity, before.Affinity)
			}
		})
	}
}
