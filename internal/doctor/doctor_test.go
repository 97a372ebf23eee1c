package doctor

import (
	"errors"
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

var now = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// lease is a ramp-controller Lease renewed age ago.
func lease(age time.Duration, holder string) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ramp-system", Name: LeaseName},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(holder), LeaseDurationSeconds: ptr.To(int32(15)),
			RenewTime: ptr.To(metav1.NewMicroTime(now.Add(-age)))},
	}
}

// webRollout is a processed canary Rollout "web" in namespace "shop";
// memory is its container's memory request ("" for none).
func webRollout(memory string, mutate ...func(*rampv1.Rollout)) rampv1.Rollout {
	c := corev1.Container{Name: "web", Image: "nginx:1"}
	if memory != "" {
		c.Resources.Requests = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(memory)}
	}
	ro := rampv1.Rollout{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Generation: 2},
		Spec: rampv1.RolloutSpec{
			Replicas: ptr.To(int32(4)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: &corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{c}},
			},
			Strategy: rampv1.RolloutStrategy{Canary: &rampv1.CanaryStrategy{Steps: []rampv1.CanaryStep{{SetWeight: ptr.To(int32(50))}}}},
		},
		Status: rampv1.RolloutStatus{ObservedGeneration: "2", Phase: rampv1.RolloutPhaseHealthy},
	}
	for _, m := range mutate {
		m(&ro)
	}
	return ro
}

func condition(t rampv1.RolloutConditionType, s corev1.ConditionStatus, msg string) func(*rampv1.Rollout) {
	return func(ro *rampv1.Rollout) {
		ro.Status.Conditions = append(ro.Status.Conditions, rampv1.RolloutCondition{Type: t, Status: s, Message: msg})
	}
}

// memoryHPA targets Rollout target with memory Utilization 54%.
func memoryHPA(target string, mutate ...func(*autoscalingv2.HorizontalPodAutoscaler)) autoscalingv2.HorizontalPodAutoscaler {
	h := autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "argoproj.io/v1alpha1", Kind: "Rollout", Name: target},
			MinReplicas:    ptr.To(int32(4)), MaxReplicas: 10,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceMemory, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To(int32(54))}}}},
		},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 4, DesiredReplicas: 4,
			CurrentMetrics: []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{
				Name: corev1.ResourceMemory, Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptr.To(int32(28))}}}}},
	}
	for _, m := range mutate {
		m(&h)
	}
	return h
}

func TestCheck(t *testing.T) {
	healthy := Snapshot{Now: now, Lease: lease(2*time.Second, "ramp-0"), LeaseNamespaces: []string{"ramp-system"}}
	with := func(mutate func(*Snapshot)) Snapshot {
		s := healthy
		mutate(&s)
		return s
	}
	for _, tc := range []struct {
		name string
		s    Snapshot
		// want are the findings, as printed, in order.
		want []string
	}{{
		name: "controller renews its lease, rollout processed",
		s:    with(func(s *Snapshot) { s.Rollouts = []rampv1.Rollout{webRollout("")} }),
		want: []string{"Lease ramp-system/ramp-controller: info: held by ramp-0, renewed 2s ago"},
	}, {
		name: "no lease anywhere",
		s:    Snapshot{Now: now, LeaseNamespaces: []string{"ramp-system", "kube-system"}},
		want: []string{"Lease ramp-system,kube-system/ramp-controller: warning: not found: no Ramp controller with leader election runs " +
			"against these namespaces, so nothing reconciles Rollouts (install config/default, or pass --controller-namespace " +
			"with the controller's --leader-election-namespace)"},
	}, {
		name: "lease not renewed",
		s:    with(func(s *Snapshot) { s.Lease = lease(time.Minute, "ramp-0") }),
		want: []string{"Lease ramp-system/ramp-controller: warning: held by ramp-0 but not renewed for 1m0s (lease duration 15s): " +
			"the controller is down or cannot reach the API server"},
	}, {
		name: "lease released",
		s:    with(func(s *Snapshot) { s.Lease = lease(0, "") }),
		want: []string{"Lease ramp-system/ramp-controller: warning: no controller holds it (the last leader released it): " +
			"nothing reconciles Rollouts until a controller starts"},
	}, {
		name: "lease not readable",
		s: Snapshot{Now: now, LeaseNamespaces: []string{"ramp-system"},
			LeaseErr: errors.New(`forbidden: cannot get leases.coordination.k8s.io in namespace "ramp-system"`)},
		want: []string{`Lease ramp-system/ramp-controller: info: not checked: forbidden: cannot get leases.coordination.k8s.io in namespace "ramp-system"`},
	}, {
		name: "seed 002: HPA on memory, no memory request, HPA says so",
		s: with(func(s *Snapshot) {
			s.Rollouts = []rampv1.Rollout{webRollout("", condition(rampv1.RolloutHPAAccounting, corev1.ConditionTrue,
				"HPA web targets this rollout: canary pods replace stable pods (no trafficRouting)"))}
			s.HPAs = []autoscalingv2.HorizontalPodAutoscaler{memoryHPA("web", func(h *autoscalingv2.HorizontalPodAutoscaler) {
				h.Status.CurrentMetrics = nil
				h.Status.Conditions = []autoscalingv2.HorizontalPodAutoscalerCondition{
					{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue},
					{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionFalse, Reason: "FailedGetResourceMetric",
						Message: "the HPA was unable to compute the replica count: failed to get memory utilization: missing request for memory in container web of Pod web-1"}}
			})}
		}),
		want: []string{
			"Lease ramp-system/ramp-controller: info: held by ramp-0, renewed 2s ago",
			"HorizontalPodAutoscaler shop/web: error: ScalingActive is False (FailedGetResourceMetric): the HPA was unable to compute " +
				"the replica count: failed to get memory utilization: missing request for memory in container web of Pod web-1",
			`HorizontalPodAutoscaler shop/web: warning: spec.metrics[0]: memory Utilization is a percentage of the pods' memory requests, ` +
				`and Rollout "web" has no memory request on container "web" (spec.template.spec.containers[0]): the HPA cannot compute it ` +
				"and does nothing (seed 002); set resources.requests.memory",
			"HorizontalPodAutoscaler shop/web: info: targets Rollout web: 4 replicas (desired 4, min 4, max 10); memory ?/54%",
			"Rollout shop/web: info: HPA web targets this rollout: canary pods replace stable pods (no trafficRouting)",
		},
	}, {
		name: "seed 000: surge accounting on a routed canary",
		s: with(func(s *Snapshot) {
			s.Rollouts = []rampv1.Rollout{webRollout("1Gi", func(ro *rampv1.Rollout) {
				ro.Annotations = map[string]string{rampv1.HPAAccountingAnnotation: rampv1.HPAAccountingSurge}
				ro.Spec.Strategy.Canary.TrafficRouting = &rampv1.RolloutTrafficRouting{Istio: &rampv1.IstioTrafficRouting{
					VirtualService: &rampv1.IstioVirtualService{Name: "web"}}}
				ro.Spec.Strategy.Canary.StableService, ro.Spec.Strategy.Canary.CanaryService = "web-stable", "web-canary"
			}, condition(rampv1.RolloutHPAAccounting, corev1.ConditionFalse, "HPA web targets this rollout: "+
				"rollout.ramp.dev/hpa-accounting: surge: canary pods are added beside a full stable ReplicaSet and the HPA counts both"))}
			s.HPAs = []autoscalingv2.HorizontalPodAutoscaler{memoryHPA("web")}
		}),
		want: []string{
			"Lease ramp-system/ramp-controller: info: held by ramp-0, renewed 2s ago",
			"HorizontalPodAutoscaler shop/web: warning: spec.metrics[0]: Rollout \"web\" sets rollout.ramp.dev/hpa-accounting: surge",
			"HorizontalPodAutoscaler shop/web: info: targets Rollout web: 4 replicas (desired 4, min 4, max 10); memory 28%/54%",
			"Rollout shop/web: warning: HPA web targets this rollout: rollout.ramp.dev/hpa-accounting: surge: canary pods are added " +
				"beside a full stable ReplicaSet and the HPA counts both",
		},
	}, {
		name: "metrics API not served, HPA target missing",
		s: with(func(s *Snapshot) {
			s.HPAs = []autoscalingv2.HorizontalPodAutoscaler{memoryHPA("gone")}
			s.MetricsAPI = errors.New("the server could not find the requested resource")
		}),
		want: []string{
			"Lease ramp-system/ramp-controller: info: held by ramp-0, renewed 2s ago",
			"HorizontalPodAutoscaler shop/web: error: spec.metrics: metrics.k8s.io/v1beta1 is not served (the server could not find " +
				"the requested resource): the HPA cannot read resource usage; install metrics-server",
			`HorizontalPodAutoscaler shop/web: warning: spec.scaleTargetRef: Rollout "gone" does not exist in namespace "shop"`,
			"HorizontalPodAutoscaler shop/web: info: targets Rollout gone: 4 replicas (desired 4, min 4, max 10); memory 28%/54%",
		},
	}, {
		name: "InvalidSpec only the controller can see, generation not observed",
		s: with(func(s *Snapshot) {
			s.Rollouts = []rampv1.Rollout{webRollout("", func(ro *rampv1.Rollout) {
				ro.Generation = 3
				ro.Status.Phase, ro.Status.Message = rampv1.RolloutPhaseDegraded, "InvalidSpec: ..."
			}, condition(rampv1.RolloutInvalidSpec, corev1.ConditionTrue, `spec.strategy.canary.stableService: Service "web-stable" not found`))}
		}),
		want: []string{
			"Lease ramp-system/ramp-controller: info: held by ramp-0, renewed 2s ago",
			`Rollout shop/web: error: the controller reports InvalidSpec: spec.strategy.canary.stableService: Service "web-stable" not found`,
			"Rollout shop/web: warning: the controller has not processed generation 3 yet (status is for generation 2): its status is out of date",
		},
	}, {
		name: "InvalidSpec lint already explains is said once; Degraded otherwise",
		s: with(func(s *Snapshot) {
			bad := webRollout("", func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.Steps[0].SetWeight = ptr.To(int32(150)) },
				condition(rampv1.RolloutInvalidSpec, corev1.ConditionTrue, "spec.strategy.canary.steps[0].setWeight: 150 must be between 0 and 100 (trafficRouting.maxTrafficWeight, 100 when unset)"))
			degraded := webRollout("", func(ro *rampv1.Rollout) {
				ro.Name = "api"
				ro.Status.Phase, ro.Status.Message = rampv1.RolloutPhaseDegraded, "RolloutAborted: metric success-rate failed"
			})
			s.Rollouts = []rampv1.Rollout{bad, degraded}
		}),
		want: []string{
			"Lease ramp-system/ramp-controller: info: held by ramp-0, renewed 2s ago",
			"Rollout shop/api: warning: Degraded: RolloutAborted: metric success-rate failed",
			"Rollout shop/web: error: spec.strategy.canary.steps[0].setWeight:",
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := Check(tc.s)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d findings, want %d:\n%s", len(got), len(tc.want), join(got))
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i].String(), w) {
					t.Errorf("finding %d:\n got %s\nwant %s...", i, got[i], w)
				}
			}
		})
	}
}

func TestCount(t *testing.T) {
	s := Snapshot{Now: now, Rollouts: []rampv1.Rollout{webRollout("")},
		HPAs: []autoscalingv2.HorizontalPodAutoscaler{memoryHPA("web")}, MetricsAPI: errors.New("no")}
	errs, warns := Count(Check(s))
	// The metrics API; the missing lease, the missing memory request.
	if errs != 1 || warns != 2 {
		t.Errorf("Count = %d errors, %d warnings, want 1, 2:\n%s", errs, warns, join(Check(s)))
	}
}

func join(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String() + "\n")
	}
	return b.String()
}

func TestCheckExperiments(t *testing.T) {
	ex := func(name string, phase rampv1.AnalysisPhase, msg string) rampv1.Experiment {
		return rampv1.Experiment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name},
			Spec:   rampv1.ExperimentSpec{Templates: []rampv1.TemplateSpec{{Name: "a"}}},
			Status: rampv1.ExperimentStatus{Phase: phase, Message: msg}}
	}
	s := Snapshot{Now: now, Lease: lease(time.Second, "ramp-0"), Experiments: []rampv1.Experiment{
		ex("ok", rampv1.AnalysisPhaseSuccessful, "done"),
		ex("bad", rampv1.AnalysisPhaseFailed, `analysis "check" (AnalysisRun bad-check) Failed: metric ok assessed Failed`),
		ex("broken", rampv1.AnalysisPhaseError, `spec.analyses[0]: AnalysisTemplate "check" not found in namespace "shop"`),
	}}
	got := join(Check(s))
	for _, want := range []string{
		`Experiment shop/bad: warning: Failed: analysis "check" (AnalysisRun bad-check) Failed: metric ok assessed Failed`,
		`Experiment shop/broken: error: Error: spec.analyses[0]: AnalysisTemplate "check" not found in namespace "shop"`,
		"Experiment shop/ok: error: spec.templates[0].selector: required, and must not select every pod", // lint's validation
	} {
		if !strings.Contains(got, want) {
			t.Errorf("findings lack %q:\n%s", want, got)
		}
	}
}
