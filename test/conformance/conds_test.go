//go:build conformance

package conformance

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Conditions on the Rollout "app" that end a step.

func phase(p string) cond {
	return cond{desc: "phase " + p, ok: func(r *unstructured.Unstructured) error {
		got, _, _ := unstructured.NestedString(r.Object, "status", "phase")
		if got != p {
			return fmt.Errorf("phase %q", got)
		}
		return nil
	}}
}

var healthy = phase("Healthy")

// pausedAt: paused (a pause condition or the controller's pause) at step i.
func pausedAt(i int64) cond {
	return cond{desc: fmt.Sprintf("paused at step %d", i), ok: func(r *unstructured.Unstructured) error {
		idx, ok, _ := unstructured.NestedInt64(r.Object, "status", "currentStepIndex")
		pcs, _, _ := unstructured.NestedSlice(r.Object, "status", "pauseConditions")
		if !ok || idx != i || len(pcs) == 0 {
			return fmt.Errorf("currentStepIndex %v (set %v), %d pause conditions", idx, ok, len(pcs))
		}
		return nil
	}}
}

// bgPaused: a blue-green rollout waiting for promotion.
var bgPaused = cond{desc: "paused for promotion", ok: func(r *unstructured.Unstructured) error {
	pcs, _, _ := unstructured.NestedSlice(r.Object, "status", "pauseConditions")
	for _, pc := range pcs {
		if pc.(map[string]any)["reason"] == "BlueGreenPause" {
			return nil
		}
	}
	return fmt.Errorf("pause conditions %v", pcs)
}}

// aborted: status.abort set and phase Degraded.
var aborted = cond{desc: "aborted", ok: func(r *unstructured.Unstructured) error {
	a, _, _ := unstructured.NestedBool(r.Object, "status", "abort")
	if !a {
		return fmt.Errorf("status.abort not set")
	}
	return phase("Degraded").ok(r)
}}

// Actions, all through the upstream plugin or kubectl, as a user types them.

func plugin(args ...string) func(context.Context, *actor) error {
	return func(ctx context.Context, a *actor) error { return a.plugin(ctx, args...) }
}

func setImage(image string) func(context.Context, *actor) error {
	return plugin("set", "image", "app", "app="+image)
}

func kubectl(args ...string) func(context.Context, *actor) error {
	return func(ctx context.Context, a *actor) error { return a.kubectl(ctx, "", args...) }
}

var (
	promote     = plugin("promote", "app")
	promoteFull = plugin("promote", "app", "--full")
	abort       = plugin("abort", "app")
	retry       = plugin("retry", "rollout", "app")
	undo        = plugin("undo", "app")
	restart     = plugin("restart", "app")
)

func scaleTo(n int) func(context.Context, *actor) error {
	return kubectl("scale", "rollout/app", fmt.Sprintf("--replicas=%d", n))
}

// oldScaledDown: healthy, and every ReplicaSet but the stable one at zero
// (after a scale-down delay).
var oldScaledDown = cond{desc: "healthy with old ReplicaSets scaled down", ok: healthy.ok,
	world: func(w *world) error {
		stable, _, _ := unstructured.NestedString(w.rollouts[0].Object, "status", "stableRS")
		for _, rs := range w.replicaSets {
			n, _, _ := unstructured.NestedInt64(rs.Object, "spec", "replicas")
			if rs.GetLabels()[hashLabel] != stable && n != 0 {
				return fmt.Errorf("replicaset %s still has %d replicas", rs.GetName(), n)
			}
		}
		return nil
	}}
