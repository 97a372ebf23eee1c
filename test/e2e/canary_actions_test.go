//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// The user actions of the Argo Rollouts kubectl plugin, each sent as the
// exact patch the plugin sends.

// actionSteps is the canary of the action tests: six steps, three of them
// indefinite pauses, with canary and stable Services.
const actionSteps = `canaryService: web-canary
stableService: web-stable
steps:
- setWeight: 20
- pause: {}
- setWeight: 40
- pause: {}
- setWeight: 60
- pause: {}
`

// canaryFixture is Rollout "web" (5 replicas, actionSteps) updated to a new
// image and paused by the controller on step 1 with 1 canary and 4 stable pods.
type canaryFixture struct{ ns, name, stable, canary string }

func pausedCanary(t *testing.T, prefix string) canaryFixture {
	t.Helper()
	f := canaryFixture{ns: namespace(t, prefix), name: "web"}
	apply(t, f.ns, serviceYAML("web-canary", f.name)+"---\n"+serviceYAML("web-stable", f.name))
	apply(t, f.ns, rolloutYAML{name: f.name, replicas: 5, canary: actionSteps}.String())
	f.stable = waitHealthy(t, f.ns, f.name, "", 5).Status.CurrentPodHash
	waitServiceHash(t, f.ns, "web-stable", f.stable)
	setImage(t, f.ns, f.name, "app", "registry.example/app:v2")
	ro := waitRollout(t, f.ns, f.name, 60*time.Second, "paused on step 1", pausedAt(1))
	if f.canary = ro.Status.CurrentPodHash; f.canary == f.stable || ro.Status.StableRS != f.stable {
		t.Fatalf("paused with current %q stable %q, want a new hash beside stable %q", f.canary, ro.Status.StableRS, f.stable)
	}
	waitReplicaSets(t, f.ns, f.name, map[string]int32{f.canary: 1, f.stable: 4})
	waitPods(t, f.ns, f.name, map[string]int{f.canary: 1, f.stable: 4})
	waitServiceHash(t, f.ns, "web-canary", f.canary)
	waitServiceHash(t, f.ns, "web-stable", f.stable)
	return f
}

// aborted: the update is aborted and the Rollout says so.
func aborted(ro *rampv1.Rollout) error {
	s := ro.Status
	c := condition(ro, rampv1.RolloutProgressing)
	switch {
	case !s.Abort || s.AbortedAt == nil:
		return fmt.Errorf("abort %v abortedAt %v", s.Abort, s.AbortedAt)
	case s.Phase != rampv1.RolloutPhaseDegraded:
		return fmt.Errorf("phase %q, want Degraded", s.Phase)
	case c == nil || c.Reason != rampv1.RolloutReasonAborted:
		return fmt.Errorf("Progressing condition %+v, want reason %s", c, rampv1.RolloutReasonAborted)
	}
	return nil
}

// userPaused: the controller saw spec.paused and reports the Rollout paused.
func userPaused(ro *rampv1.Rollout) error {
	if err := observed(ro); err != nil {
		return err
	}
	if c := condition(ro, rampv1.RolloutPaused); ro.Status.Phase != rampv1.RolloutPhasePaused || c == nil || c.Status != corev1.ConditionTrue {
		return fmt.Errorf("phase %q, Paused condition %+v", ro.Status.Phase, c)
	}
	return nil
}

func TestCanaryActions(t *testing.T) {
	t.Parallel()

	t.Run("promote", func(t *testing.T) {
		t.Parallel()
		f := pausedCanary(t, "promote")
		ro, err := getRollout(f.ns, f.name)
		if err != nil {
			t.Fatal(err)
		}
		if c := condition(ro, rampv1.RolloutProgressing); c == nil || c.Reason != rampv1.RolloutReasonPaused {
			t.Errorf("Progressing condition on a pause step = %+v, want reason %s", c, rampv1.RolloutReasonPaused)
		}
		waitEvents(t, f.ns, f.name, rampv1.RolloutReasonPaused, rampv1.RolloutReasonStepCompleted)
		patchStatus(t, f.ns, f.name, `{"status":{"pauseConditions":null}}`)
		ro = waitRollout(t, f.ns, f.name, 60*time.Second, "paused on step 3", pausedAt(3))
		if ro.Status.CurrentPodHash != f.canary || ro.Status.StableRS != f.stable {
			t.Errorf("current %q stable %q, want %q and %q", ro.Status.CurrentPodHash, ro.Status.StableRS, f.canary, f.stable)
		}
		waitReplicaSets(t, f.ns, f.name, map[string]int32{f.canary: 2, f.stable: 3})
		waitPods(t, f.ns, f.name, map[string]int{f.canary: 2, f.stable: 3})
	})

	t.Run("promote-non-pause-step", func(t *testing.T) {
		t.Parallel()
		const name = "web"
		ns := namespace(t, "promote-step")
		apply(t, ns, rolloutYAML{name: name, replicas: 5, canary: "steps:\n- setWeight: 20\n- pause: {}\n- setWeight: 40\n"}.String())
		stable := waitHealthy(t, ns, name, "", 5).Status.CurrentPodHash
		// The new pods can never be scheduled, so step 0 (setWeight 20) never completes.
		patch(t, ns, name, "merge", `{"spec":{"template":{"spec":{"nodeSelector":{"ramp-e2e/unschedulable":"true"}}}}}`)
		ro := waitRollout(t, ns, name, 30*time.Second, "stuck on step 0", func(ro *rampv1.Rollout) error {
			if err := newTemplate(stable)(ro); err != nil {
				return err
			}
			if i := ro.Status.CurrentStepIndex; i == nil || *i != 0 {
				return fmt.Errorf("step %s, want 0", stepString(i))
			}
			return nil
		})
		canary := ro.Status.CurrentPodHash
		eventually(t, 30*time.Second, "canary ReplicaSet wants 1 pod", func() error {
			rss, err := replicaSets(ns, name)
			if err == nil && (rss[canary] == nil || *rss[canary].Spec.Replicas != 1) {
				err = fmt.Errorf("canary ReplicaSet %v", rss[canary])
			}
			return err
		})
		patchStatus(t, ns, name, `{"status":{"pauseConditions":null,"currentStepIndex":1}}`)
		ro = waitRollout(t, ns, name, 30*time.Second, "skipped to the pause on step 1", pausedAt(1))
		if ro.Status.CurrentPodHash != canary {
			t.Errorf("current %q, want %q", ro.Status.CurrentPodHash, canary)
		}
	})

	t.Run("promote-full", func(t *testing.T) {
		t.Parallel()
		f := pausedCanary(t, "promote-full")
		patchStatus(t, f.ns, f.name, `{"status":{"promoteFull":true}}`)
		ro := waitHealthy(t, f.ns, f.name, f.canary, 5)
		if i := ro.Status.CurrentStepIndex; i == nil || *i != 6 {
			t.Errorf("currentStepIndex = %s, want 6 (all steps done)", stepString(i))
		}
		waitReplicaSets(t, f.ns, f.name, map[string]int32{f.canary: 5, f.stable: 0})
		waitPods(t, f.ns, f.name, map[string]int{f.canary: 5})
		waitServiceHash(t, f.ns, "web-stable", f.canary)
		waitServiceHash(t, f.ns, "web-canary", f.canary)
	})

	t.Run("abort", func(t *testing.T) {
		t.Parallel()
		f := pausedCanary(t, "abort")
		patchStatus(t, f.ns, f.name, `{"status":{"abort":true}}`)
		ro := waitRollout(t, f.ns, f.name, 30*time.Second, "aborted", aborted)
		if ro.Status.StableRS != f.stable || ro.Status.CurrentPodHash != f.canary {
			t.Errorf("aborted with stable %q current %q, want %q and %q", ro.Status.StableRS, ro.Status.CurrentPodHash, f.stable, f.canary)
		}
		waitReplicaSets(t, f.ns, f.name, map[string]int32{f.canary: 0, f.stable: 5})
		waitPods(t, f.ns, f.name, map[string]int{f.stable: 5})
		waitServiceHash(t, f.ns, "web-stable", f.stable)
		waitEvents(t, f.ns, f.name, rampv1.RolloutReasonAborted)
	})

	t.Run("retry", func(t *testing.T) {
		t.Parallel()
		f := pausedCanary(t, "retry")
		patchStatus(t, f.ns, f.name, `{"status":{"abort":true}}`)
		waitRollout(t, f.ns, f.name, 30*time.Second, "aborted", aborted)
		waitPods(t, f.ns, f.name, map[string]int{f.stable: 5})
		patchStatus(t, f.ns, f.name, `{"status":{"abort":false}}`)
		// The canary pod went with the abort: a canary pod again means step 0 ran again.
		waitRollout(t, f.ns, f.name, 60*time.Second, "paused on step 1 again", func(ro *rampv1.Rollout) error {
			if ro.Status.Abort {
				return fmt.Errorf("still aborted")
			}
			return pausedAt(1)(ro)
		})
		waitReplicaSets(t, f.ns, f.name, map[string]int32{f.canary: 1, f.stable: 4})
		waitPods(t, f.ns, f.name, map[string]int{f.canary: 1, f.stable: 4})
	})

	t.Run("pause-resume", func(t *testing.T) {
		t.Parallel()
		const name = "web"
		ns := namespace(t, "pause")
		apply(t, ns, rolloutYAML{name: name, replicas: 5, canary: "steps:\n- setWeight: 20\n- setWeight: 40\n- setWeight: 60\n- setWeight: 80\n"}.String())
		stable := waitHealthy(t, ns, name, "", 5).Status.CurrentPodHash
		patch(t, ns, name, "merge", `{"spec":{"paused":true}}`)
		waitRollout(t, ns, name, 30*time.Second, "paused by the user", userPaused)
		setImage(t, ns, name, "app", "registry.example/app:v2")
		waitRollout(t, ns, name, 30*time.Second, "saw the new template while paused", userPaused)
		// Unpaused, these four steps take a few seconds; paused, none may complete.
		consistently(t, 5*time.Second, "no step progress while paused", func() error {
			ro, err := getRollout(ns, name)
			if err != nil {
				return err
			}
			if i := ro.Status.CurrentStepIndex; ro.Status.CurrentPodHash != stable && i != nil && *i > 0 {
				return fmt.Errorf("on step %d", *i)
			}
			if ro.Status.StableRS != stable {
				return fmt.Errorf("stableRS %q, want %q", ro.Status.StableRS, stable)
			}
			return userPaused(ro)
		})
		patch(t, ns, name, "merge", `{"spec":{"paused":false}}`)
		waitRollout(t, ns, name, 90*time.Second, "Healthy on the new version after resume", func(ro *rampv1.Rollout) error {
			if err := newTemplate(stable)(ro); err != nil {
				return err
			}
			return healthy(5, "")(ro)
		})
	})

	t.Run("undo-to-stable", func(t *testing.T) {
		t.Parallel()
		f := pausedCanary(t, "undo")
		rss, err := replicaSets(f.ns, f.name)
		if err != nil {
			t.Fatal(err)
		}
		stableRS := rss[f.stable]
		tpl := stableRS.Spec.Template.DeepCopy()
		delete(tpl.Labels, hashLabel)
		body, err := json.Marshal([]map[string]any{{"op": "replace", "path": "/spec/template", "value": tpl}})
		if err != nil {
			t.Fatal(err)
		}
		patch(t, f.ns, f.name, "json", string(body))
		// Running the steps again would stop on the pause of step 1.
		ro := waitHealthy(t, f.ns, f.name, f.stable, 5)
		if i := ro.Status.CurrentStepIndex; i == nil || *i != 6 {
			t.Errorf("currentStepIndex = %s, want 6: the steps were not skipped", stepString(i))
		}
		waitReplicaSets(t, f.ns, f.name, map[string]int32{f.canary: 0, f.stable: 5})
		waitPods(t, f.ns, f.name, map[string]int{f.stable: 5})
		if rss, err = replicaSets(f.ns, f.name); err != nil || rss[f.stable] == nil || rss[f.stable].UID != stableRS.UID {
			t.Errorf("stable ReplicaSet %s was replaced (%v)", stableRS.Name, err)
		}
		waitServiceHash(t, f.ns, "web-stable", f.stable)
	})

	t.Run("restart", func(t *testing.T) { t.Parallel(); testRestart(t) })
}

// testRestart: spec.restartAt replaces every pod created before it, never
// more than maxUnavailable (1 of 4) at a time, then sets status.restartedAt.
func testRestart(t *testing.T) {
	const name = "web"
	ns := namespace(t, "restart")
	apply(t, ns, rolloutYAML{name: name, replicas: 4, canary: "maxUnavailable: 1\n"}.String())
	hash := waitHealthy(t, ns, name, "", 4).Status.CurrentPodHash
	waitPods(t, ns, name, map[string]int{hash: 4})
	var pods corev1.PodList
	if err := env.client.List(context.Background(), &pods, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	// restartAt has second resolution: take a second every pod is older than.
	var at time.Time
	eventually(t, 5*time.Second, "a restartAt after every pod's creation", func() error {
		at = time.Now().UTC().Truncate(time.Second)
		for _, p := range pods.Items {
			if !p.CreationTimestamp.Time.Before(at) {
				return fmt.Errorf("pod %s created at %s", p.Name, p.CreationTimestamp)
			}
		}
		return nil
	})
	w := watchPods(t, ns, func(pods map[string]*corev1.Pod) error {
		ready := 0
		for _, p := range pods {
			if podReady(p) {
				ready++
			}
		}
		if ready < 3 {
			return fmt.Errorf("%d ready pods: %s", ready, describePods(pods))
		}
		return nil
	})
	patch(t, ns, name, "merge", fmt.Sprintf(`{"spec":{"restartAt":%q}}`, at.Format(time.RFC3339)))
	ro := waitRollout(t, ns, name, 90*time.Second, "restartedAt set", func(ro *rampv1.Rollout) error {
		if r := ro.Status.RestartedAt; r == nil || !r.Time.Equal(at) {
			return fmt.Errorf("restartedAt %v, want %s", r, at.Format(time.RFC3339))
		}
		return nil
	})
	waitPods(t, ns, name, map[string]int{hash: 4})
	states, violations, err := w.stop()
	if err != nil {
		t.Fatalf("pod watch failed after %d states: %v", states, err)
	}
	for _, v := range violations {
		t.Errorf("more than maxUnavailable pods down %s", v)
	}
	old := map[types.UID]bool{}
	for _, p := range pods.Items {
		old[p.UID] = true
	}
	var now corev1.PodList
	if err := env.client.List(context.Background(), &now, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, p := range now.Items {
		if p.DeletionTimestamp == nil && old[p.UID] {
			t.Errorf("pod %s, created %s before restartAt %s, was not restarted", p.Name, p.CreationTimestamp, at)
		}
	}
	if ro.Status.CurrentPodHash != hash || ro.Status.StableRS != hash {
		t.Errorf("restart changed the pod hash: current %q stable %q, want %q", ro.Status.CurrentPodHash, ro.Status.StableRS, hash)
	}
}
