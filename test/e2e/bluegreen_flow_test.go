//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestBlueGreenSeed003: seed 003's rollouts-blue-green (5 replicas, manual
// promotion) with rollouts-blue-svc (preview) and rollouts-green-svc
// (active), driven as the text describes.
func TestBlueGreenSeed003(t *testing.T) {
	t.Parallel()
	const name = "rollouts-blue-green"
	ns := namespace(t, "bg-seed")
	if _, stderr, err := kubectl(t, "", "apply", "--server-side", "-n", ns, "-f", "testdata/seeds/003-bluegreen.yaml"); err != nil {
		t.Fatalf("apply: %v\n%s", err, stderr)
	}
	old := waitHealthy(t, ns, name, "", 5).Status.CurrentPodHash
	waitServiceHash(t, ns, "rollouts-green-svc", old)
	waitServiceHash(t, ns, "rollouts-blue-svc", old)
	guard := guardActive(t, ns, "rollouts-green-svc", 5)

	setImage(t, ns, name, name, "argoproj/rollouts-demo:yellow")
	ro := waitRollout(t, ns, name, 90*time.Second, "paused for promotion", pausedBlueGreen)
	fresh := ro.Status.CurrentPodHash
	waitPods(t, ns, name, map[string]int{old: 5, fresh: 5})
	waitServiceHash(t, ns, "rollouts-blue-svc", fresh)
	waitServiceHash(t, ns, "rollouts-green-svc", old)
	if ro.Status.BlueGreen.ActiveSelector != old {
		t.Errorf("status.blueGreen.activeSelector %q while paused, want %q", ro.Status.BlueGreen.ActiveSelector, old)
	}

	patchStatus(t, ns, name, `{"status":{"pauseConditions":null}}`)
	ro = waitRollout(t, ns, name, 60*time.Second, "promoted", promoted(old))
	if ro.Status.BlueGreen.ActiveSelector != fresh || ro.Status.Selector != fmt.Sprintf("app=%s,%s=%s", name, hashLabel, fresh) {
		t.Errorf("active selector %q, /scale selector %q", ro.Status.BlueGreen.ActiveSelector, ro.Status.Selector)
	}
	waitServiceHash(t, ns, "rollouts-green-svc", fresh)
	waitServiceHash(t, ns, "rollouts-blue-svc", fresh)
	waitEndpoints(t, ns, "rollouts-green-svc", fresh, 5)
	eventually(t, 10*time.Second, "old ReplicaSet waits with a scale-down deadline", func() error {
		rss, err := replicaSets(ns, name)
		if err != nil {
			return err
		}
		if rss[old] == nil || *rss[old].Spec.Replicas != 5 || rss[old].Annotations[rampv1.ScaleDownDeadlineAnnotation] == "" {
			return fmt.Errorf("old ReplicaSet %v", rss[old])
		}
		return nil
	})
	waitReplicaSets(t, ns, name, map[string]int32{old: 0, fresh: 5})
	waitHealthy(t, ns, name, fresh, 5)
	guard.check(t)
	waitEvents(t, ns, name, rampv1.RolloutReasonPaused, rampv1.RolloutReasonCompleted)
}

// TestBlueGreenAutoPromotion: with the default autoPromotionEnabled the new
// version goes live as soon as it is fully available, without a pause.
func TestBlueGreenAutoPromotion(t *testing.T) {
	t.Parallel()
	const name = "auto"
	ns := namespace(t, "bg-auto")
	apply(t, ns, blueGreenYAML(name, 3, "", "scaleDownDelaySeconds: 1"))
	old := waitHealthy(t, ns, name, "", 3).Status.CurrentPodHash
	guard := guardActive(t, ns, name+"-active", 3)
	setImage(t, ns, name, "app", "registry.example/app:v2")
	ro := waitRollout(t, ns, name, 90*time.Second, "new revision live", func(ro *rampv1.Rollout) error {
		if len(ro.Status.PauseConditions) > 0 {
			t.Errorf("auto-promoting rollout paused: %v", ro.Status.PauseConditions)
		}
		return promoted(old)(ro)
	})
	waitServiceHash(t, ns, name+"-active", ro.Status.CurrentPodHash)
	waitReplicaSets(t, ns, name, map[string]int32{old: 0, ro.Status.CurrentPodHash: 3})
	guard.check(t)
}

// TestBlueGreenAutoPromotionSeconds: the rollout pauses, then promotes by
// itself autoPromotionSeconds later.
func TestBlueGreenAutoPromotionSeconds(t *testing.T) {
	t.Parallel()
	const name = "timed"
	ns := namespace(t, "bg-timed")
	apply(t, ns, blueGreenYAML(name, 2, "", "autoPromotionSeconds: 3"))
	old := waitHealthy(t, ns, name, "", 2).Status.CurrentPodHash
	setImage(t, ns, name, "app", "registry.example/app:v2")
	ro := waitRollout(t, ns, name, 90*time.Second, "paused before timed promotion", pausedBlueGreen)
	pausedAt := ro.Status.PauseConditions[0].StartTime.Time
	ro = waitRollout(t, ns, name, 60*time.Second, "promoted by itself", promoted(old))
	if promoted := time.Now(); promoted.Sub(pausedAt) < 3*time.Second {
		t.Errorf("promoted %s after the pause began, before autoPromotionSeconds (3s)", promoted.Sub(pausedAt))
	}
	if ro.Status.BlueGreen.ActiveSelector == old {
		t.Error("active selector still on the old revision")
	}
}

// TestBlueGreenPreviewReplicaCount: the preview runs 1 pod; on promote the
// new ReplicaSet reaches full size before the active Service switches.
func TestBlueGreenPreviewReplicaCount(t *testing.T) {
	t.Parallel()
	const name = "small"
	ns := namespace(t, "bg-preview")
	apply(t, ns, blueGreenYAML(name, 4, "", "autoPromotionEnabled: false\npreviewReplicaCount: 1"))
	old := waitHealthy(t, ns, name, "", 4).Status.CurrentPodHash
	guard := guardActive(t, ns, name+"-active", 4)
	setImage(t, ns, name, "app", "registry.example/app:v2")
	ro := waitRollout(t, ns, name, 90*time.Second, "paused with the preview", pausedBlueGreen)
	fresh := ro.Status.CurrentPodHash
	waitReplicaSets(t, ns, name, map[string]int32{old: 4, fresh: 1})
	waitServiceHash(t, ns, name+"-preview", fresh)
	patchStatus(t, ns, name, `{"status":{"pauseConditions":null}}`)
	waitRollout(t, ns, name, 60*time.Second, "promoted", promoted(old))
	waitServiceHash(t, ns, name+"-active", fresh)
	guard.check(t)
}

// TestBlueGreenAbortRetry: abort keeps live traffic on the stable version,
// points the preview back at it and scales the new ReplicaSet down after
// abortScaleDownDelaySeconds; retry starts the promotion flow again.
func TestBlueGreenAbortRetry(t *testing.T) {
	t.Parallel()
	const name = "abort"
	ns := namespace(t, "bg-abort")
	apply(t, ns, blueGreenYAML(name, 3, "", "autoPromotionEnabled: false\nabortScaleDownDelaySeconds: 2"))
	old := waitHealthy(t, ns, name, "", 3).Status.CurrentPodHash
	setImage(t, ns, name, "app", "registry.example/app:v2")
	fresh := waitRollout(t, ns, name, 90*time.Second, "paused", pausedBlueGreen).Status.CurrentPodHash
	waitServiceHash(t, ns, name+"-preview", fresh)

	patchStatus(t, ns, name, `{"status":{"abort":true}}`)
	ro := waitRollout(t, ns, name, 30*time.Second, "aborted", func(ro *rampv1.Rollout) error {
		c := condition(ro, rampv1.RolloutProgressing)
		if ro.Status.Phase != rampv1.RolloutPhaseDegraded || c == nil || c.Reason != rampv1.RolloutReasonAborted || ro.Status.AbortedAt == nil {
			return fmt.Errorf("phase %q progressing %v", ro.Status.Phase, c)
		}
		return nil
	})
	if ro.Status.BlueGreen.ActiveSelector != old {
		t.Errorf("active selector %q after abort, want %q", ro.Status.BlueGreen.ActiveSelector, old)
	}
	waitServiceHash(t, ns, name+"-active", old)
	waitServiceHash(t, ns, name+"-preview", fresh) // as upstream: the preview stays on the aborted version (conformance: bluegreen-abort-retry)
	waitReplicaSets(t, ns, name, map[string]int32{old: 3, fresh: 0})

	patchStatus(t, ns, name, `{"status":{"abort":false}}`)
	waitRollout(t, ns, name, 60*time.Second, "paused again after retry", pausedBlueGreen)
	waitReplicaSets(t, ns, name, map[string]int32{old: 3, fresh: 3})
	waitServiceHash(t, ns, name+"-preview", fresh)
}

// TestBlueGreenScaleDownDelaySurvivesRestart: the old ReplicaSet's
// scale-down deadline is kept on the ReplicaSet; a controller restarted in
// the middle of the delay neither resets it nor scales down early.
func TestBlueGreenScaleDownDelaySurvivesRestart(t *testing.T) {
	t.Parallel()
	const name = "delay"
	ns := namespace(t, "bg-delay")
	first := ownController(t, ns, ns)
	apply(t, ns, blueGreenYAML(name, 2, ns, "scaleDownDelaySeconds: 8"))
	old := waitHealthy(t, ns, name, "", 2).Status.CurrentPodHash
	setImage(t, ns, name, "app", "registry.example/app:v2")
	fresh := waitRollout(t, ns, name, 90*time.Second, "promoted", promoted(old)).Status.CurrentPodHash
	var deadline string
	eventually(t, 30*time.Second, "old ReplicaSet carries its scale-down deadline", func() error {
		rss, err := replicaSets(ns, name)
		if err != nil {
			return fmt.Errorf("old ReplicaSet: %w", err)
		}
		if rss[old] == nil {
			return fmt.Errorf("old ReplicaSet %s gone", old)
		}
		if deadline = rss[old].Annotations[rampv1.ScaleDownDeadlineAnnotation]; deadline == "" {
			return fmt.Errorf("no deadline yet")
		}
		return nil
	})
	at, err := time.Parse(time.RFC3339, deadline)
	if err != nil {
		t.Fatal(err)
	}
	first.stop()
	ownController(t, ns, ns)
	eventually(t, 60*time.Second, "old ReplicaSet scaled to 0", func() error {
		rss, err := replicaSets(ns, name)
		if err != nil {
			return err
		}
		if n := *rss[old].Spec.Replicas; n != 0 {
			if got := rss[old].Annotations[rampv1.ScaleDownDeadlineAnnotation]; got != deadline {
				t.Errorf("deadline changed across the restart: %q -> %q", deadline, got)
			}
			return fmt.Errorf("old ReplicaSet still at %d", n)
		}
		return nil
	})
	if now := time.Now(); now.Before(at) {
		t.Errorf("old ReplicaSet scaled down at %s, before its deadline %s", now.Format(time.RFC3339Nano), deadline)
	}
	waitReplicaSets(t, ns, name, map[string]int32{old: 0, fresh: 2})
}

// TestBlueGreenMissingPreviewService: InvalidSpec naming the Service, the
// running version keeps serving, and creating the Service recovers.
func TestBlueGreenMissingPreviewService(t *testing.T) {
	t.Parallel()
	const name = "missing"
	ns := namespace(t, "bg-invalid")
	apply(t, ns, blueGreenYAML(name, 2, "", ""))
	old := waitHealthy(t, ns, name, "", 2).Status.CurrentPodHash
	if _, stderr, err := kubectl(t, "", "delete", "service", "-n", ns, name+"-preview"); err != nil {
		t.Fatalf("delete preview service: %v\n%s", err, stderr)
	}
	setImage(t, ns, name, "app", "registry.example/app:v2")
	waitRollout(t, ns, name, 30*time.Second, "InvalidSpec naming the Service", func(ro *rampv1.Rollout) error {
		c := condition(ro, rampv1.RolloutInvalidSpec)
		if c == nil || ro.Status.Phase != rampv1.RolloutPhaseDegraded {
			return fmt.Errorf("phase %q invalid %v", ro.Status.Phase, c)
		}
		if want := `spec.strategy.blueGreen.previewService: Service "missing-preview" not found`; !strings.Contains(c.Message, want) {
			return fmt.Errorf("message %q does not contain %q", c.Message, want)
		}
		return nil
	})
	rss, err := replicaSets(ns, name)
	if err != nil || len(rss) != 1 || *rss[old].Spec.Replicas != 2 {
		t.Errorf("an invalid spec changed the ReplicaSets: %v (%v)", rss, err)
	}
	apply(t, ns, serviceYAML(name+"-preview", name))
	waitRollout(t, ns, name, 60*time.Second, "recovered and paused or promoted", func(ro *rampv1.Rollout) error {
		if condition(ro, rampv1.RolloutInvalidSpec) != nil {
			return fmt.Errorf("still InvalidSpec")
		}
		return newTemplate(old)(ro)
	})
}
