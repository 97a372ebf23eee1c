//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestDoctor runs `ramp doctor` against live objects that the real HPA
// controller, metrics-server and the Ramp controller have acted on:
//   - norequest: seed 002's pitfall, an HPA on memory for pods that request
//     none. Doctor gives lint's warning and the HPA's own ScalingActive=False.
//   - surge: seed 000's pitfall, hpa-accounting: surge on a routed canary
//     with a memory HPA (lint's rule), whose VirtualService is missing (the
//     controller's InvalidSpec, which only the cluster knows).
//   - fine: an HPA-targeted canary with requests, measured: exit 0, the
//     accounting in force and the HPA's measurement as info.
func TestDoctor(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "doctor")
	apply(t, ns, rolloutYAML{name: "norequest", replicas: 2, canary: "steps: [{setWeight: 50}, {pause: {}}]"}.String()+`---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: norequest}
spec:
  scaleTargetRef: {apiVersion: argoproj.io/v1alpha1, kind: Rollout, name: norequest}
  minReplicas: 2
  maxReplicas: 4
  metrics: [{type: Resource, resource: {name: memory, target: {type: Utilization, averageUtilization: 54}}}]
`)
	surge := hpaRolloutYAML("surge", 2, 100, 280, `canary:
  stableService: surge-stable
  canaryService: surge-canary
  trafficRouting: {istio: {virtualService: {name: surge-missing, routes: [primary]}}}
  steps: [{setWeight: 50}, {pause: {}}]`, corev1.ResourceMemory, 54, 2, 4)
	surge = strings.Replace(surge, "metadata: {name: surge}",
		fmt.Sprintf("metadata: {name: surge, annotations: {%s: %s}}", rampv1.HPAAccountingAnnotation, rampv1.HPAAccountingSurge), 1)
	apply(t, ns, surge+"---\n"+serviceYAML("surge-stable", "surge")+"---\n"+serviceYAML("surge-canary", "surge"))
	apply(t, ns, hpaRolloutYAML("fine", 2, 100, 400, "canary: {steps: [{setWeight: 50}, {pause: {}}]}", corev1.ResourceMemory, 54, 2, 4))

	waitRollout(t, ns, "surge", time.Minute, "InvalidSpec for the missing VirtualService", func(ro *rampv1.Rollout) error {
		if c := condition(ro, rampv1.RolloutInvalidSpec); c == nil || !strings.Contains(c.Message, "surge-missing") {
			return fmt.Errorf("no InvalidSpec naming the VirtualService: %s", summary(ro))
		}
		return nil
	})
	eventually(t, 2*time.Minute, "the HPA controller reports norequest cannot scale", func() error {
		var h autoscalingv2.HorizontalPodAutoscaler
		if err := env.client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "norequest"}, &h); err != nil {
			return err
		}
		for _, c := range h.Status.Conditions {
			if c.Type == autoscalingv2.ScalingActive && c.Status == corev1.ConditionFalse {
				return nil
			}
		}
		return fmt.Errorf("conditions %v", h.Status.Conditions)
	})
	waitHealthy(t, ns, "fine", "", 2)
	waitHPA(t, ns, "fine", corev1.ResourceMemory, 40, 2)

	out, code := ramp(t, ns, "doctor", "--controller-namespace", leaseNamespace)
	if code != 1 {
		t.Errorf("ramp doctor: exit %d, want 1 (errors found)\n%s", code, out)
	}
	for _, want := range []string{
		"Lease " + leaseNamespace + "/ramp-controller: info: held by ",
		"HorizontalPodAutoscaler " + ns + "/norequest: error: ScalingActive is False (FailedGetResourceMetric): ",
		"HorizontalPodAutoscaler " + ns + `/norequest: warning: spec.metrics[0]: memory Utilization is a percentage of the pods' ` +
			`memory requests, and Rollout "norequest" has no memory request on container "app"`,
		"HorizontalPodAutoscaler " + ns + `/surge: warning: spec.metrics[0]: Rollout "surge" sets rollout.ramp.dev/hpa-accounting: surge ` +
			"with trafficRouting and no dynamicStableScale",
		"Rollout " + ns + "/surge: error: the controller reports InvalidSpec: ",
		"HorizontalPodAutoscaler " + ns + "/fine: info: targets Rollout fine: 2 replicas (desired 2, min 2, max 4); memory 40%/54%",
		"Rollout " + ns + "/fine: info: HPA fine targets this rollout: canary pods replace stable pods (no trafficRouting)",
		// The surge HPA may also report ScalingActive=False: its Rollout has
		// no pods to measure.
		"doctor: 3 rollout(s), 3 HPA(s), 0 experiment(s): ", "error(s), 2 warning(s)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("ramp doctor output lacks %q:\n%s", want, out)
		}
	}

	// One rollout: only it and its HPA, nothing wrong.
	out, code = ramp(t, ns, "doctor", "fine", "--controller-namespace", leaseNamespace)
	if code != 0 || strings.Contains(out, "norequest") || strings.Contains(out, "surge") ||
		!strings.Contains(out, "doctor: 1 rollout(s), 1 HPA(s), 0 experiment(s): 0 error(s), 0 warning(s)") {
		t.Errorf("ramp doctor fine: exit %d, want 0 with only fine's findings, none a problem:\n%s", code, out)
	}
	if out, code := ramp(t, ns, "doctor", "absent"); code != 1 || !strings.Contains(out, fmt.Sprintf("rollout %q not found", ns+"/absent")) {
		t.Errorf("ramp doctor absent: exit %d, want 1 naming the rollout:\n%s", code, out)
	}
}
