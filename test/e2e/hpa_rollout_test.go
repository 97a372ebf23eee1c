//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// hpaRolloutYAML is a Rollout whose pods request 200m CPU and 1000Mi memory
// and use cpuMilli and memMi of them (kwok usage annotations), with the
// strategy block given, plus an autoscaling/v2 HPA on one resource metric.
func hpaRolloutYAML(name string, replicas, cpuMilli, memMi int, strategy string, res corev1.ResourceName, target, minR, maxR int) string {
	return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: %[1]s}
spec:
  replicas: %[2]d
  selector:
    matchLabels: {app: %[1]s}
  template:
    metadata:
      labels: {app: %[1]s}
      annotations: {kwok.x-k8s.io/usage-cpu: %[3]dm, kwok.x-k8s.io/usage-memory: %[4]dMi}
    spec:
      containers:
      - name: app
        image: registry.example/app:v1
        resources:
          requests: {cpu: 200m, memory: 1000Mi}
  strategy:
    %[5]s
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: %[1]s}
spec:
  scaleTargetRef: {apiVersion: argoproj.io/v1alpha1, kind: Rollout, name: %[1]s}
  minReplicas: %[8]d
  maxReplicas: %[9]d
  metrics:
  - type: Resource
    resource:
      name: %[6]s
      target: {type: Utilization, averageUtilization: %[7]d}
`, name, replicas, cpuMilli, memMi, strings.ReplaceAll(strings.Trim(strategy, "\n"), "\n", "\n    "), res, target, minR, maxR)
}

// TestHPASeed002OnRollout replays seed 002's worked numbers with the real
// HPA controller scaling a Rollout through its /scale subresource: CPU target
// 50%, min 2, max 10, request 200m. 52% of 2 pods is within the 0.1
// tolerance (stays 2); 56% -> ceil(2 x 1.12) = 3; 93% -> ceil(2 x 1.86) = 4;
// 48% of 4 pods is within tolerance (stays 4).
func TestHPASeed002OnRollout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		usage, replicas, want int
	}{
		{usage: 52, replicas: 2, want: 2},
		{usage: 56, replicas: 2, want: 3},
		{usage: 93, replicas: 2, want: 4},
		{usage: 48, replicas: 4, want: 4},
	} {
		t.Run(fmt.Sprintf("%d%% of %d pods", tc.usage, tc.replicas), func(t *testing.T) {
			t.Parallel()
			ns, name := namespace(t, fmt.Sprintf("hpa-seed002-%d", tc.usage)), "web"
			apply(t, ns, hpaRolloutYAML(name, tc.replicas, tc.usage*2, 100, "canary: {}", corev1.ResourceCPU, 50, 2, 10))
			waitHealthy(t, ns, name, "", int32(tc.replicas))
			if tc.want == tc.replicas {
				// Nothing to see but a decision: the HPA measured exactly this
				// usage, chose the current size, and keeps it.
				waitHPA(t, ns, name, corev1.ResourceCPU, int32(tc.usage), int32(tc.replicas))
				consistently(t, 6*time.Second, "the HPA keeps the Rollout's size", func() error {
					ro, err := getRollout(ns, name)
					if err != nil {
						return err
					}
					if ro.Replicas() != int32(tc.replicas) {
						return fmt.Errorf("spec.replicas %d", ro.Replicas())
					}
					return nil
				})
				return
			}
			var size int32
			eventually(t, 120*time.Second, "the HPA rescales the Rollout", func() error {
				ro, err := getRollout(ns, name)
				if err != nil {
					return err
				}
				if ro.Replicas() == int32(tc.replicas) {
					return fmt.Errorf("spec.replicas still %d", ro.Replicas())
				}
				size, err = rescaleEvent(ns)
				return err
			})
			if size != int32(tc.want) {
				t.Errorf("at %d%% of a 50%% target with %d pods the HPA first chose %d replicas, want %d", tc.usage, tc.replicas, size, tc.want)
			}
			waitRollout(t, ns, name, 90*time.Second, "the new size running", func(ro *rampv1.Rollout) error {
				if ro.Status.AvailableReplicas < size || ro.Status.HPAReplicas < size {
					return fmt.Errorf("available %d, HPAReplicas %d, want at least %d", ro.Status.AvailableReplicas, ro.Status.HPAReplicas, size)
				}
				return nil
			})
		})
	}
}

// rolloutScale reads a Rollout's /scale subresource, as the HPA does.
func rolloutScale(t *testing.T, ns, name string) (replicas int32, selector string) {
	t.Helper()
	raw, stderr, err := kubectl(t, "", "get", "--raw", fmt.Sprintf("/apis/argoproj.io/v1alpha1/namespaces/%s/rollouts/%s/scale", ns, name))
	if err != nil {
		t.Fatalf("GET /scale: %v: %s", err, stderr)
	}
	var s struct {
		Status struct {
			Replicas int32  `json:"replicas"`
			Selector string `json:"selector"`
		} `json:"status"`
	}
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	return s.Status.Replicas, s.Status.Selector
}

// TestHPABlueGreen: an HPA on a blue-green Rollout counts only the active
// ReplicaSet (the /scale selector carries the active hash). Pods use 40% of
// their memory against a 54% target with 2 replicas: 2 active + 2 preview
// counted together would give ceil(4 x 40/54) = 3; the HPA keeps 2.
func TestHPABlueGreen(t *testing.T) {
	t.Parallel()
	ns, name := namespace(t, "hpa-bluegreen"), "bg"
	apply(t, ns, serviceYAML(name+"-active", name)+"---\n"+serviceYAML(name+"-preview", name)+"---\n"+
		hpaRolloutYAML(name, 2, 20, 400, fmt.Sprintf("blueGreen: {activeService: %[1]s-active, previewService: %[1]s-preview, autoPromotionEnabled: false}", name),
			corev1.ResourceMemory, 54, 2, 10))
	v1 := waitHealthy(t, ns, name, "", 2).Status.StableRS
	waitHPA(t, ns, name, corev1.ResourceMemory, 40, 2)
	if n, sel := rolloutScale(t, ns, name); n != 2 || !strings.Contains(sel, hashLabel+"="+v1) {
		t.Errorf("/scale of the stable Rollout: replicas %d, selector %q, want 2 and %s=%s", n, sel, hashLabel, v1)
	}
	ro := waitRollout(t, ns, name, 30*time.Second, "HPAAccounting condition", func(ro *rampv1.Rollout) error {
		if c := condition(ro, rampv1.RolloutHPAAccounting); c == nil || c.Reason != rampv1.HPAReasonActiveOnly {
			return fmt.Errorf("HPAAccounting %+v", c)
		}
		return nil
	})
	t.Logf("condition: %s", condition(ro, rampv1.RolloutHPAAccounting).Message)

	patch(t, ns, name, "json", `[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"registry.example/app:v2"}]`)
	v2 := waitRollout(t, ns, name, 60*time.Second, "preview up, paused", func(ro *rampv1.Rollout) error {
		if ro.Status.Phase != rampv1.RolloutPhasePaused || ro.Status.BlueGreen.PreviewSelector != ro.Status.CurrentPodHash || ro.Status.CurrentPodHash == v1 {
			return fmt.Errorf("phase %s, preview %q, current %q", ro.Status.Phase, ro.Status.BlueGreen.PreviewSelector, ro.Status.CurrentPodHash)
		}
		return nil
	}).Status.CurrentPodHash
	waitPods(t, ns, name, map[string]int{v1: 2, v2: 2})
	waitPodMetrics(t, ns, name)
	s := sampleHPA(t, ns, name, name, name, corev1.ResourceMemory, 2*time.Second)
	s.at("preview up")
	consistently(t, 20*time.Second, "the HPA counts only the active pods", func() error {
		smp, err := s.look()
		if err != nil {
			return err
		}
		if smp.desired != 2 || smp.target != 2 || smp.utilization != 40 {
			return fmt.Errorf("HPA measures %d%% and wants %d, spec.replicas %d", smp.utilization, smp.desired, smp.target)
		}
		return nil
	})
	if n, sel := rolloutScale(t, ns, name); n != 2 || !strings.Contains(sel, hashLabel+"="+v1) {
		t.Errorf("/scale with the preview up: replicas %d, selector %q, want 2 and the active %s=%s", n, sel, hashLabel, v1)
	}
	s.at("promoted")
	patchStatus(t, ns, name, `{"status":{"pauseConditions":null}}`)
	waitHealthy(t, ns, name, v2, 2)
	eventually(t, 30*time.Second, "/scale follows the active ReplicaSet", func() error {
		if _, sel := rolloutScale(t, ns, name); !strings.Contains(sel, hashLabel+"="+v2) {
			return fmt.Errorf("selector %q", sel)
		}
		return nil
	})
	table, _ := s.table()
	t.Logf("HPA samples (blue-green):\n%s", table)
}
