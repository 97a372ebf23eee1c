//go:build conformance

package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The canary beyond the basic steps: user actions (undo, restart, scale,
// pause, skip), timed pauses, the progress deadline, pod metadata,
// anti-affinity, the rollback window, minReadySeconds and workloadRef.

// rolloutWith is rollout with extra spec fields (YAML lines indented by two).
func rolloutWith(replicas int, spec, strategy string) string {
	return strings.Replace(rollout(replicas, strategy), "  revisionHistoryLimit: 3\n", "  revisionHistoryLimit: 3\n"+spec, 1)
}

// twoPauses: 25% and a pause, 75% and a pause.
const twoPauses = "    canary:\n      steps: [{setWeight: 25}, {pause: {}}, {setWeight: 75}, {pause: {}}]"

// onePause: 50% and a pause.
const onePause = "    canary:\n      steps: [{setWeight: 50}, {pause: {}}]"

// unschedulable makes the template's pods unplaceable, hence never ready (no
// node has the label): a release that cannot make progress.
var unschedulable = kubectl("patch", "rollout", "app", "--type=merge", "-p",
	`{"spec":{"template":{"spec":{"nodeSelector":{"conformance.ramp.dev/no-such-node":"x"}}}}}`)

// schedulable undoes unschedulable: the template is revision 1's again.
var schedulable = kubectl("patch", "rollout", "app", "--type=merge", "-p",
	`{"spec":{"template":{"spec":{"nodeSelector":null}}}}`)

// skipCurrentStep is Argo CD's "skip-current-step" action on a Rollout: it
// clears the pause conditions and advances status.currentStepIndex, in one
// write of the status (the same merge patch, applied with kubectl).
func skipCurrentStep(ctx context.Context, a *actor) error {
	r, err := a.dyn.Resource(gvrRollout).Namespace(a.ns).Get(ctx, "app", metav1.GetOptions{})
	if err != nil {
		return err
	}
	idx, _, _ := unstructured.NestedInt64(r.Object, "status", "currentStepIndex")
	steps, _, _ := unstructured.NestedSlice(r.Object, "spec", "strategy", "canary", "steps")
	if idx >= int64(len(steps)) {
		return fmt.Errorf("skip-current-step: at step %d of %d", idx, len(steps))
	}
	patch := fmt.Sprintf(`{"status":{"pauseConditions":null,"currentStepIndex":%d}}`, idx+1)
	return a.kubectl(ctx, "", "patch", "rollout", "app", "--subresource=status", "--type=merge", "-p", patch)
}

// healthyAt: healthy at the revision (the Rollout's revision annotation).
func healthyAt(rev string) cond {
	return cond{desc: "healthy at revision " + rev, ok: func(r *unstructured.Unstructured) error {
		if got := r.GetAnnotations()["rollout.argoproj.io/revision"]; got != rev {
			return fmt.Errorf("revision %q", got)
		}
		return healthy.ok(r)
	}}
}

// pausedWith: paused at step i with n pods in all.
func pausedWith(i, n int64) cond {
	return cond{desc: fmt.Sprintf("paused at step %d with %d pods", i, n), ok: pausedAt(i).ok,
		world: func(w *world) error {
			var sum int64
			for _, rs := range w.replicaSets {
				k, _, _ := unstructured.NestedInt64(rs.Object, "spec", "replicas")
				sum += k
			}
			if sum != n {
				return fmt.Errorf("%d pods wanted", sum)
			}
			return nil
		}}
}

// userPaused: spec.paused seen by the controller (phase Paused).
var userPaused = cond{desc: "paused by the user", ok: func(r *unstructured.Unstructured) error {
	if p, _, _ := unstructured.NestedBool(r.Object, "spec", "paused"); !p {
		return errors.New("spec.paused not set")
	}
	return phase("Paused").ok(r)
}}

// stalled: the progress deadline passed (condition Progressing False).
var stalled = cond{desc: "past its progress deadline", ok: func(r *unstructured.Unstructured) error {
	conds, _, _ := unstructured.NestedSlice(r.Object, "status", "conditions")
	for _, c := range conds {
		c, _ := c.(map[string]any)
		if c["type"] == "Progressing" {
			if c["reason"] != "ProgressDeadlineExceeded" {
				return fmt.Errorf("Progressing %v/%v", c["status"], c["reason"])
			}
			return nil
		}
	}
	return errors.New("no Progressing condition")
}}

// restartDone: status.restartedAt caught up with spec.restartAt, and every live
// pod was created at or after it.
var restartDone = cond{desc: "restart done", ok: func(r *unstructured.Unstructured) error {
	want, _, _ := unstructured.NestedString(r.Object, "spec", "restartAt")
	got, _, _ := unstructured.NestedString(r.Object, "status", "restartedAt")
	if want == "" || got != want {
		return fmt.Errorf("spec.restartAt %q, status.restartedAt %q", want, got)
	}
	return nil
}, world: func(w *world) error {
	r := w.rollouts[0]
	at, err := time.Parse(time.RFC3339, fmt.Sprint(r.Object["spec"].(map[string]any)["restartAt"]))
	if err != nil {
		return err
	}
	for _, p := range w.pods {
		if p.GetDeletionTimestamp() != nil {
			continue
		}
		if p.GetCreationTimestamp().Time.Before(at) {
			return fmt.Errorf("pod %s predates the restart", p.GetName())
		}
	}
	return nil
}}

const workloadDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: app}
spec:
  replicas: 0
  selector: {matchLabels: {app: app}}
  template:
    metadata: {labels: {app: app}}
    spec: {containers: [{name: app, image: "registry.example/app:v1"}]}
---
`

const workloadRollout = `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: app}
spec:
  replicas: 2
  revisionHistoryLimit: 3
  selector: {matchLabels: {app: app}}
  workloadRef: {apiVersion: apps/v1, kind: Deployment, name: app}
  strategy:
    canary:
      steps: [{setWeight: 50}, {pause: {}}]
`

func canaryMoreScenarios() []scenario {
	v2, v3 := setImage("registry.example/app:v2"), setImage("registry.example/app:v3")
	return []scenario{{
		name:    "canary-undo",
		ci:      true,
		yaml:    rollout(2, onePause),
		initial: healthy,
		steps: []step{
			{name: "set image", do: v2, until: pausedAt(1)},
			{name: "promote", do: promote, until: healthyAt("2")},
			{name: "undo", do: undo, until: pausedAt(1)},
			{name: "promote", do: promote, until: healthyAt("3")},
		},
	}, {
		name:    "canary-undo-twice",
		yaml:    rollout(2, "    canary:\n      steps: [{setWeight: 50}]"),
		initial: healthy,
		steps: []step{
			{name: "set image v2", do: v2, until: healthyAt("2")},
			{name: "set image v3", do: v3, until: healthyAt("3")},
			{name: "undo", do: undo, until: healthyAt("4")},
			{name: "undo again", do: undo, until: healthyAt("5")},
		},
	}, {
		// Not in the CI subset: once in a loaded full run Ramp's second
		// restart (while paused) did not finish within the settle timeout;
		// under investigation (docs/conformance.md).
		name:    "canary-restart",
		ci:      true,
		yaml:    rollout(3, onePause),
		initial: healthy,
		steps: []step{
			{name: "restart", do: restart, until: restartDone},
			{name: "set image", do: v2, until: pausedAt(1)},
			{name: "restart paused", do: restart, until: restartDone},
			{name: "promote", do: promote, until: healthyAt("2")},
		},
	}, {
		name:    "canary-scale-paused",
		yaml:    rollout(4, twoPauses),
		initial: healthy,
		steps: []step{
			{name: "set image", do: v2, until: pausedAt(1)},
			{name: "scale to 8", do: scaleTo(8), until: pausedWith(1, 8)},
			{name: "scale to 2 (canary rounds up)", do: scaleTo(2), until: pausedWith(1, 3)},
			{name: "promote full", do: promoteFull, until: healthyAt("2")},
		},
	}, {
		// Promoting a rollout paused by the user, at no pause step, also
		// skips its current step (the plugin's rule). Not resumed at a
		// pause step: the plugin clears the pause condition and then
		// spec.paused in two writes, and whether upstream's pass between
		// them forgets the resume is a race.
		name:    "canary-user-pause",
		yaml:    rollout(4, twoPauses),
		initial: healthy,
		steps: []step{
			{name: "pause", do: plugin("pause", "app"), until: userPaused},
			{name: "set image", do: v2, until: userPaused},
			{name: "resume", do: promote, until: pausedAt(1)},
			{name: "promote", do: promote, until: pausedAt(3)},
			{name: "promote full", do: promoteFull, until: healthyAt("2")},
		},
	}, {
		name:    "canary-timed-pause",
		ci:      true,
		yaml:    rollout(2, "    canary:\n      steps: [{setWeight: 50}, {pause: {duration: 2}}]"),
		initial: healthy,
		steps: []step{
			{name: "set image", do: v2, until: healthyAt("2")},
		},
	}, {
		name:    "canary-progress-deadline",
		yaml:    rolloutWith(2, "  progressDeadlineSeconds: 5\n", onePause),
		initial: healthy,
		steps: []step{
			{name: "unschedulable", do: unschedulable, until: stalled},
			{name: "schedulable again", do: schedulable, until: healthyAt("3")},
		},
	}, {
		name:    "canary-progress-deadline-abort",
		yaml:    rolloutWith(2, "  progressDeadlineSeconds: 5\n  progressDeadlineAbort: true\n", onePause),
		initial: healthy,
		steps: []step{
			{name: "unschedulable", do: unschedulable, until: aborted},
			{name: "schedulable again", do: schedulable, until: healthyAt("3")},
		},
	}, {
		name: "canary-metadata",
		ci:   true,
		yaml: rollout(4, `    canary:
      canaryMetadata: {labels: {role: canary}, annotations: {note: canary}}
      stableMetadata: {labels: {role: stable}}
      steps: [{setWeight: 50}, {pause: {}}]`),
		initial: healthy,
		steps: []step{
			{name: "set image", do: v2, until: pausedAt(1)},
			{name: "promote", do: promote, until: healthyAt("2")},
			{name: "set image v3", do: v3, until: pausedAt(1)},
			{name: "abort", do: abort, until: aborted},
		},
	}, {
		name: "canary-antiaffinity",
		yaml: rollout(3, `    canary:
      antiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: {weight: 50}}
      steps: [{setWeight: 34}, {pause: {}}]`),
		initial: healthy,
		steps: []step{
			{name: "set image", do: v2, until: pausedAt(1)},
			{name: "promote", do: promote, until: healthyAt("2")},
		},
	}, {
		name:    "canary-rollback-window",
		yaml:    rolloutWith(2, "  rollbackWindow: {revisions: 1}\n", twoPauses),
		initial: healthy,
		steps: []step{
			{name: "set image", do: v2, until: pausedAt(1)},
			{name: "promote full", do: promoteFull, until: healthyAt("2")},
			{name: "undo", do: undo, until: healthyAt("3")},
		},
	}, {
		name:    "canary-promote-full-first-pause",
		yaml:    rollout(5, twoPauses),
		initial: healthy,
		steps: []step{
			{name: "set image", do: v2, until: pausedAt(1)},
			{name: "promote full", do: promoteFull, until: healthyAt("2")},
		},
	}, {
		name:    "canary-abort-new-image",
		yaml:    rollout(4, twoPauses),
		initial: healthy,
		steps: []step{
			{name: "set image v2", do: v2, until: pausedAt(1)},
			{name: "abort", do: abort, until: aborted},
			{name: "set image v3", do: v3, until: pausedAt(1)},
			{name: "promote full", do: promoteFull, until: healthyAt("3")},
		},
	}, {
		name:    "canary-min-ready",
		yaml:    rolloutWith(3, "  minReadySeconds: 2\n", "    canary:\n      steps: [{setWeight: 34}, {pause: {}}]"),
		initial: healthy,
		steps: []step{
			{name: "set image", do: v2, until: pausedAt(1)},
			{name: "promote", do: promote, until: healthyAt("2")},
		},
	}, {
		name:    "canary-skip-step",
		yaml:    rollout(4, twoPauses),
		initial: healthy,
		steps: []step{
			{name: "set image", do: v2, until: pausedAt(1)},
			{name: "skip step", do: skipCurrentStep, until: pausedAt(3)},
			{name: "skip step", do: skipCurrentStep, until: healthyAt("2")},
		},
	}, {
		// Without spec.selector the Deployment's selector serves.
		name:    "canary-workload-ref-no-selector",
		pre:     workloadDeployment,
		yaml:    strings.Replace(workloadRollout, "  selector: {matchLabels: {app: app}}\n", "", 1),
		initial: healthy,
		steps: []step{
			{name: "set deployment image", do: kubectl("set", "image", "deployment/app", "app=registry.example/app:v2"), until: pausedAt(1)},
			{name: "promote", do: promote, until: healthyAt("2")},
		},
	}, {
		name:    "canary-workload-ref",
		pre:     workloadDeployment,
		yaml:    workloadRollout,
		initial: healthy,
		steps: []step{
			{name: "set deployment image", do: kubectl("set", "image", "deployment/app", "app=registry.example/app:v2"), until: pausedAt(1)},
			{name: "promote", do: promote, until: healthyAt("2")},
		},
	}}
}
