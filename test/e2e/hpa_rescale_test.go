//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestHPARescaleMidCanary: the real HPA controller changes spec.replicas
// while seed 000's canary is paused at 75%. Raising minReplicas 4 -> 6
// makes the HPA scale the Rollout to 6: the split becomes
// ceil(0.75 x 6) = 5 canary + 1 stable, so the HPA still counts 6 pods and
// does not scale further; back to 4 gives 3 + 1. The step index and the
// verified 75% weight never change, and promoting goes on to the next
// step (100%), neither repeating nor skipping one.
func TestHPARescaleMidCanary(t *testing.T) {
	t.Parallel()
	ns, ro, app := namespace(t, "hpa-rescale"), "rollouts-demo", "rollouts-demo"
	manifest, err := os.ReadFile("testdata/hpa/seed000.yaml")
	if err != nil {
		t.Fatal(err)
	}
	apply(t, ns, string(manifest))
	v1 := waitRollout(t, ns, ro, 90*time.Second, "Healthy", verifiedWeight(0, healthy(4, ""))).Status.StableRS
	waitHPA(t, ns, "rollout", corev1.ResourceMemory, 28, 4)
	patch(t, ns, ro, "json", `[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"argoproj/rollouts-demo:yellow"}]`)
	v2 := waitRollout(t, ns, ro, 90*time.Second, "paused at 75%", verifiedWeight(75, pausedAt(1))).Status.CurrentPodHash
	waitPods(t, ns, app, map[string]int{v1: 1, v2: 3})

	s := sampleHPA(t, ns, "rollout", ro, app, corev1.ResourceMemory, 2*time.Second)
	for _, tc := range []struct {
		min            int
		stable, canary int
	}{
		{min: 6, stable: 1, canary: 5},
		{min: 4, stable: 1, canary: 3},
	} {
		s.at(fmt.Sprintf("minReplicas %d", tc.min))
		if _, stderr, err := kubectl(t, "", "patch", "hpa", "rollout", "-n", ns, "--type", "merge",
			"-p", fmt.Sprintf(`{"spec":{"minReplicas":%d}}`, tc.min)); err != nil {
			t.Fatalf("patch hpa: %v: %s", err, stderr)
		}
		waitRollout(t, ns, ro, 2*time.Minute, fmt.Sprintf("the HPA scaled the Rollout to %d", tc.min), func(r *rampv1.Rollout) error {
			if r.Spec.Replicas == nil || int(*r.Spec.Replicas) != tc.min {
				return fmt.Errorf("spec.replicas %v", r.Spec.Replicas)
			}
			return nil
		})
		waitPods(t, ns, app, map[string]int{v1: tc.stable, v2: tc.canary})
		// The HPA reads status.HPAReplicas through /scale: it follows once
		// the ReplicaSets' status counts the pods.
		waitRollout(t, ns, ro, 30*time.Second, "still paused at 75%, /scale reporting the pods", func(r *rampv1.Rollout) error {
			if r.Status.HPAReplicas != int32(tc.stable+tc.canary) {
				return fmt.Errorf("status.HPAReplicas %d, want %d", r.Status.HPAReplicas, tc.stable+tc.canary)
			}
			return verifiedWeight(75, pausedAt(1))(r)
		})
		waitPodMetrics(t, ns, app)
		consistently(t, 8*time.Second, fmt.Sprintf("the HPA keeps %d", tc.min), func() error {
			smp, err := s.look()
			if err != nil {
				return err
			}
			if int(smp.desired) != tc.min || int(smp.target) != tc.min {
				return fmt.Errorf("HPA wants %d, spec.replicas %d, with %d stable + %d canary pods", smp.desired, smp.target, smp.stable, smp.canary)
			}
			return nil
		})
	}
	s.at("promoted")
	patchStatus(t, ns, ro, `{"status":{"pauseConditions":null}}`)
	waitRollout(t, ns, ro, 90*time.Second, "paused at 100% (step 3)", verifiedWeight(100, pausedAt(3)))
	waitPods(t, ns, app, map[string]int{v1: 1, v2: 4})
	table, samples := s.table()
	t.Logf("HPA samples:\n%s", table)
	for i, x := range samples {
		// Right after the HPA lowers spec.replicas, the pods of the larger
		// size are still there until Ramp scales down and they terminate:
		// the bound is the larger of this sample's and the previous one's.
		limit := x.target
		if i > 0 {
			limit = max(limit, samples[i-1].target)
		}
		if int32(x.stable+x.canary) > limit+1 {
			t.Errorf("%d stable + %d canary pods with spec.replicas %d: more than replicas+1:\n%s", x.stable, x.canary, x.target, table)
			break
		}
	}
}
