//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestHPASeed000 replays seed 000 on the real HPA controller and
// metrics-server: pods use 28% of their memory request against a 54%
// target, 4 replicas, a traffic-routed canary at 75% then 100%.
//
// Ramp takes the canary's pods from stable, so the HPA counts at most
// replicas+1 pods (ceil(5 x 28/54) = 3 -> minReplicas 4) and wants 4 at
// every sample. With hpa-accounting: surge (Argo Rollouts' behaviour) the
// 100% step runs 4 stable + 4 canary and the same HPA wants
// ceil(8 x 28/54) = 5: the incident, which proves the test can fail.
func TestHPASeed000(t *testing.T) {
	t.Parallel()
	for _, surge := range []bool{false, true} {
		name := "ramp"
		if surge {
			name = "surge"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			seed000(t, surge)
		})
	}
}

func seed000(t *testing.T, surge bool) {
	ns, ro, app := namespace(t, "hpa-seed000"), "rollouts-demo", "rollouts-demo"
	manifest, err := os.ReadFile("testdata/hpa/seed000.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := string(manifest)
	if surge {
		m = strings.Replace(m, "  name: rollouts-demo\nspec:", fmt.Sprintf("  name: rollouts-demo\n  annotations: {%s: %s}\nspec:",
			rampv1.HPAAccountingAnnotation, rampv1.HPAAccountingSurge), 1)
	}
	apply(t, ns, m)
	v1 := waitRollout(t, ns, ro, 90*time.Second, "Healthy", verifiedWeight(0, healthy(4, ""))).Status.StableRS
	wantReason := rampv1.HPAReasonFromStable
	if surge {
		wantReason = rampv1.HPAReasonSurge
	}
	cond := waitRollout(t, ns, ro, 30*time.Second, "HPAAccounting condition", func(r *rampv1.Rollout) error {
		if c := condition(r, rampv1.RolloutHPAAccounting); c == nil || c.Reason != wantReason {
			return fmt.Errorf("HPAAccounting %+v, want reason %s", c, wantReason)
		}
		return nil
	})
	if !surge {
		want := "HPA rollout targets this rollout: canary pods are taken from stable"
		if c := condition(cond, rampv1.RolloutHPAAccounting); c.Message != want {
			t.Errorf("condition message %q, want %q", c.Message, want)
		}
		waitEventMessage(t, ns, ro, wantReason, want)
	}
	waitHPA(t, ns, "rollout", corev1.ResourceMemory, 28, 4)

	s := sampleHPA(t, ns, "rollout", ro, app, corev1.ResourceMemory, 2*time.Second)
	steady := func(stage string) {
		t.Helper()
		waitPodMetrics(t, ns, app) // every pod measured: the HPA's next syncs count them all
		s.at(stage + ", measured")
		if surge && stage == "100%" {
			eventually(t, 60*time.Second, "the HPA over-counts and scales the Rollout up (surge)", func() error {
				smp, err := s.look()
				if err != nil {
					return err
				}
				if smp.desired < 5 || smp.target < 5 {
					return fmt.Errorf("HPA wants %d, spec.replicas %d, with %d stable + %d canary pods", smp.desired, smp.target, smp.stable, smp.canary)
				}
				return nil
			})
			return
		}
		consistently(t, 20*time.Second, "HPA wants 4 at "+stage, func() error {
			smp, err := s.look()
			if err != nil {
				return err
			}
			if smp.desired != 4 || smp.target != 4 || smp.utilization != 28 { // 28: the HPA is computing, not failing
				return fmt.Errorf("HPA measures %d%% and wants %d, spec.replicas %d, with %d stable + %d canary pods",
					smp.utilization, smp.desired, smp.target, smp.stable, smp.canary)
			}
			return nil
		})
	}

	s.at("75%")
	patch(t, ns, ro, "json", `[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"argoproj/rollouts-demo:yellow"}]`)
	v2 := waitRollout(t, ns, ro, 90*time.Second, "paused at 75%", verifiedWeight(75, pausedAt(1))).Status.CurrentPodHash
	wantAt75 := map[string]int{v1: 1, v2: 3}
	if surge {
		wantAt75 = map[string]int{v1: 4, v2: 3}
	}
	waitPods(t, ns, app, wantAt75)
	steady("75%")

	s.at("100%")
	patchStatus(t, ns, ro, `{"status":{"pauseConditions":null}}`)
	waitRollout(t, ns, ro, 90*time.Second, "paused at 100%", verifiedWeight(100, pausedAt(3)))
	if !surge {
		waitPods(t, ns, app, map[string]int{v1: 1, v2: 4})
	}
	steady("100%")
	if !surge {
		s.at("promoted")
		patchStatus(t, ns, ro, `{"status":{"pauseConditions":null}}`)
		waitRollout(t, ns, ro, 90*time.Second, "Healthy on v2", verifiedWeight(0, healthy(4, v2)))
		waitPods(t, ns, app, map[string]int{v2: 4})
		steady("Healthy")
	}

	table, samples := s.table()
	t.Logf("HPA samples (hpa-accounting %s):\n%s", map[bool]string{false: "default", true: "surge"}[surge], table)
	most, overCount := 0, false
	for _, x := range samples {
		most = max(most, x.stable+x.canary)
		overCount = overCount || x.desired > 4 || x.target > 4
	}
	switch {
	case !surge && (overCount || most > 5):
		t.Errorf("the HPA over-counted: up to %d pods, samples:\n%s", most, table)
	case surge && !overCount:
		t.Errorf("hpa-accounting: surge did not reproduce the incident:\n%s", table)
	}
}
