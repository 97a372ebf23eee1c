package plan

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestSpecProblems: the value rules upstream's CRD schema does not enforce
// (Ramp's CRD did, before admission followed upstream's): each is
// InvalidSpec naming the field, with a deterministic message.
func TestSpecProblems(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
	canary := func(ro *rampv1.Rollout) *rampv1.CanaryStrategy { return ro.Spec.Strategy.Canary }
	blueGreen := func(ro *rampv1.Rollout) *rampv1.BlueGreenStrategy {
		ro.Spec.Strategy = rampv1.RolloutStrategy{BlueGreen: &rampv1.BlueGreenStrategy{ActiveService: "active"}}
		return ro.Spec.Strategy.BlueGreen
	}
	routed := func(ro *rampv1.Rollout) *rampv1.RolloutTrafficRouting {
		c := canary(ro)
		c.CanaryService, c.StableService = "canary", "stable"
		c.TrafficRouting = &rampv1.RolloutTrafficRouting{}
		return c.TrafficRouting
	}
	zero, zeroPct, neg := intstr.FromInt32(0), intstr.FromString("0%"), intstr.FromInt32(-1)
	for _, tc := range []struct {
		name string
		edit func(*rampv1.Rollout)
		want string
	}{
		{"negative replicas", func(ro *rampv1.Rollout) { ro.Spec.Replicas = i32(-1) },
			"spec.replicas: -1 must not be negative"},
		{"negative minReadySeconds", func(ro *rampv1.Rollout) { ro.Spec.MinReadySeconds = -1 },
			"spec.minReadySeconds: -1 must not be negative"},
		{"negative revisionHistoryLimit", func(ro *rampv1.Rollout) { ro.Spec.RevisionHistoryLimit = i32(-1) },
			"spec.revisionHistoryLimit: -1 must not be negative"},
		{"negative progressDeadlineSeconds", func(ro *rampv1.Rollout) { ro.Spec.ProgressDeadlineSeconds = i32(-5) },
			"spec.progressDeadlineSeconds: -5 must not be negative"},
		{"negative rollbackWindow", func(ro *rampv1.Rollout) { ro.Spec.RollbackWindow = &rampv1.RollbackWindowSpec{Revisions: -1} },
			"spec.rollbackWindow.revisions: -1 must not be negative"},
		{"no strategy", func(ro *rampv1.Rollout) { ro.Spec.Strategy = rampv1.RolloutStrategy{} },
			"spec.strategy: exactly one of canary or blueGreen must be set"},
		{"both strategies", func(ro *rampv1.Rollout) {
			ro.Spec.Strategy.BlueGreen = &rampv1.BlueGreenStrategy{ActiveService: "active"}
		}, "spec.strategy: exactly one of canary or blueGreen must be set"},
		{"no activeService", func(ro *rampv1.Rollout) { blueGreen(ro).ActiveService = "" },
			"spec.strategy.blueGreen.activeService: required"},
		{"previewService is activeService", func(ro *rampv1.Rollout) { blueGreen(ro).PreviewService = "active" },
			`spec.strategy.blueGreen.previewService: must differ from spec.strategy.blueGreen.activeService (both "active")`},
		{"negative previewReplicaCount", func(ro *rampv1.Rollout) { blueGreen(ro).PreviewReplicaCount = i32(-1) },
			"spec.strategy.blueGreen.previewReplicaCount: -1 must not be negative"},
		{"blue-green anti-affinity with both kinds", func(ro *rampv1.Rollout) {
			blueGreen(ro).AntiAffinity = &rampv1.AntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &rampv1.RequiredDuringSchedulingIgnoredDuringExecution{},
				PreferredDuringSchedulingIgnoredDuringExecution: &rampv1.PreferredDuringSchedulingIgnoredDuringExecution{Weight: 50}}
		}, "spec.strategy.blueGreen.antiAffinity: set exactly one of requiredDuringSchedulingIgnoredDuringExecution or preferredDuringSchedulingIgnoredDuringExecution"},
		{"anti-affinity weight", func(ro *rampv1.Rollout) {
			canary(ro).AntiAffinity = &rampv1.AntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: &rampv1.PreferredDuringSchedulingIgnoredDuringExecution{Weight: 101}}
		}, "spec.strategy.canary.antiAffinity.preferredDuringSchedulingIgnoredDuringExecution.weight: 101 must be between 1 and 100"},
		{"empty anti-affinity", func(ro *rampv1.Rollout) { canary(ro).AntiAffinity = &rampv1.AntiAffinity{} },
			"spec.strategy.canary.antiAffinity: set exactly one of requiredDuringSchedulingIgnoredDuringExecution or preferredDuringSchedulingIgnoredDuringExecution"},
		{"canaryService is stableService", func(ro *rampv1.Rollout) { canary(ro).CanaryService, canary(ro).StableService = "web", "web" },
			`spec.strategy.canary.stableService: must name a different Service than spec.strategy.canary.canaryService (both "web")`},
		{"maxSurge and maxUnavailable 0", func(ro *rampv1.Rollout) { canary(ro).MaxSurge, canary(ro).MaxUnavailable = &zero, &zeroPct },
			"spec.strategy.canary: maxSurge and maxUnavailable cannot both be 0"},
		{"negative maxSurge", func(ro *rampv1.Rollout) { canary(ro).MaxSurge = &neg },
			"spec.strategy.canary.maxSurge: -1 resolves to -1, want 0..2147483647"},
		{"too many steps", func(ro *rampv1.Rollout) { canary(ro).Steps = make([]rampv1.CanaryStep, 1001); fill(canary(ro).Steps) },
			"spec.strategy.canary.steps: 1001 steps: at most 1000 are supported"},
		{"setWeight above 100", func(ro *rampv1.Rollout) { canary(ro).Steps[0] = weight(101) },
			"spec.strategy.canary.steps[0].setWeight: 101 must be between 0 and 100 (trafficRouting.maxTrafficWeight, 100 when unset)"},
		{"negative setWeight", func(ro *rampv1.Rollout) { canary(ro).Steps[0] = weight(-1) },
			"spec.strategy.canary.steps[0].setWeight: -1 must be between 0 and 100 (trafficRouting.maxTrafficWeight, 100 when unset)"},
		{"setWeight within maxTrafficWeight", func(ro *rampv1.Rollout) {
			routed(ro).Nginx = &rampv1.NginxTrafficRouting{StableIngress: "i"}
			canary(ro).TrafficRouting.MaxTrafficWeight = i32(1000)
			canary(ro).Steps[0] = weight(500)
		}, ""},
		{"setCanaryScale weight", func(ro *rampv1.Rollout) {
			canary(ro).Steps[0] = rampv1.CanaryStep{SetCanaryScale: &rampv1.SetCanaryScale{Weight: i32(101)}}
		}, "spec.strategy.canary.steps[0].setCanaryScale.weight: 101 must be between 0 and 100 (trafficRouting.maxTrafficWeight, 100 when unset)"},
		{"negative setCanaryScale replicas", func(ro *rampv1.Rollout) {
			canary(ro).Steps[0] = rampv1.CanaryStep{SetCanaryScale: &rampv1.SetCanaryScale{Replicas: i32(-2)}}
		}, "spec.strategy.canary.steps[0].setCanaryScale.replicas: -2 must not be negative"},
		{"mirror percentage", func(ro *rampv1.Rollout) {
			routed(ro).Istio = &rampv1.IstioTrafficRouting{VirtualService: &rampv1.IstioVirtualService{Name: "vs"}}
			canary(ro).TrafficRouting.ManagedRoutes = []rampv1.ManagedRoute{{Name: "m"}}
			canary(ro).Steps[0] = rampv1.CanaryStep{SetMirrorRoute: &rampv1.SetMirrorRoute{Name: "m", Percentage: i32(101)}}
		}, "spec.strategy.canary.steps[0].setMirrorRoute.percentage: 101 must be between 0 and 100"},
		{"negative pause (seconds)", func(ro *rampv1.Rollout) {
			d := intstr.FromInt32(-5)
			canary(ro).Steps[1] = rampv1.CanaryStep{Pause: &rampv1.RolloutPause{Duration: &d}}
		}, `spec.strategy.canary.steps[1].pause.duration "-5": must not be negative`},
		{"negative pause (string)", func(ro *rampv1.Rollout) {
			d := intstr.FromString("-1m")
			canary(ro).Steps[1] = rampv1.CanaryStep{Pause: &rampv1.RolloutPause{Duration: &d}}
		}, `spec.strategy.canary.steps[1].pause.duration "-1m": must not be negative`},
		{"pause seconds beyond an int32", func(ro *rampv1.Rollout) {
			d := intstr.FromString("99999999999999")
			canary(ro).Steps[1] = rampv1.CanaryStep{Pause: &rampv1.RolloutPause{Duration: &d}}
		}, `spec.strategy.canary.steps[1].pause.duration "99999999999999": strconv.ParseInt: parsing "99999999999999": value out of range`},
		{"pause duration that overflows", func(ro *rampv1.Rollout) {
			d := intstr.FromString("3000000h")
			canary(ro).Steps[1] = rampv1.CanaryStep{Pause: &rampv1.RolloutPause{Duration: &d}}
		}, `spec.strategy.canary.steps[1].pause.duration "3000000h": time: invalid duration "3000000h"`},
		{"negative minPodsPerReplicaSet", func(ro *rampv1.Rollout) { canary(ro).MinPodsPerReplicaSet = i32(-1) },
			"spec.strategy.canary.minPodsPerReplicaSet: -1 must not be negative"},
		{"negative startingStep", func(ro *rampv1.Rollout) {
			canary(ro).Analysis = &rampv1.RolloutAnalysisBackground{RolloutAnalysis: rampv1.RolloutAnalysis{
				Templates: []rampv1.AnalysisTemplateRef{{TemplateName: "t"}}}, StartingStep: i32(-1)}
		}, "spec.strategy.canary.analysis.startingStep: -1 must not be negative"},
		{"istio virtualService and virtualServices", func(ro *rampv1.Rollout) {
			routed(ro).Istio = &rampv1.IstioTrafficRouting{VirtualService: &rampv1.IstioVirtualService{Name: "a"},
				VirtualServices: []rampv1.IstioVirtualService{{Name: "b"}}}
		}, "spec.strategy.canary.trafficRouting.istio: set virtualService or virtualServices, not both"},
		{"nginx stableIngress and stableIngresses", func(ro *rampv1.Rollout) {
			routed(ro).Nginx = &rampv1.NginxTrafficRouting{StableIngress: "a", StableIngresses: []string{"b"}}
		}, "spec.strategy.canary.trafficRouting.nginx: set stableIngress or stableIngresses, not both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ro := &rampv1.Rollout{}
			ro.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
			ro.Spec.Template = &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}
			ro.Spec.Strategy.Canary = &rampv1.CanaryStrategy{Steps: []rampv1.CanaryStep{weight(20), pauseForever()}}
			tc.edit(ro)
			var want []string
			if tc.want != "" {
				want = []string{tc.want}
			}
			if got := ValidateRollout(ro); !reflect.DeepEqual(got, want) {
				t.Errorf("ValidateRollout:\n got %q\nwant %q", got, want)
			}
			if got := ValidateStrategy(ro); got != tc.want {
				t.Errorf("ValidateStrategy = %q, want %q (the controller reports it as InvalidSpec)", got, tc.want)
			}
		})
	}
}

func fill(steps []rampv1.CanaryStep) {
	for i := range steps {
		steps[i] = weight(10)
	}
}

// TestInvalidSpecWithoutStrategy: a Rollout with no strategy (upstream's
// CRD admits it) is planned as InvalidSpec without touching the missing
// strategy.
func TestInvalidSpecWithoutStrategy(t *testing.T) {
	ro := &rampv1.Rollout{}
	ro.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	ro.Spec.Template = &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}}
	msg := ValidateStrategy(ro)
	out := For(ro)(Input{Rollout: ro, Invalid: msg})
	if out.Status.Phase != rampv1.RolloutPhaseDegraded || out.Status.Message != "InvalidSpec: "+msg {
		t.Errorf("phase %q message %q, want Degraded with InvalidSpec: %s", out.Status.Phase, out.Status.Message, msg)
	}
}
