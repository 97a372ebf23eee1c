//go:build conformance

package conformance

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// blueGreen renders the blueGreen strategy block on the Services of
// bgServices, with extra fields (one per line, already indented).
func blueGreen(extra ...string) string {
	s := "    blueGreen:\n      activeService: active\n      previewService: preview"
	for _, e := range extra {
		s += "\n      " + e
	}
	return s
}

// restarted: healthy, status.restartedAt set, and every live pod of the
// Rollout created at or after it (the restart has gone through all pods).
var restarted = cond{desc: "restarted", ok: func(r *unstructured.Unstructured) error {
	if err := healthy.ok(r); err != nil {
		return err
	}
	if at, _, _ := unstructured.NestedString(r.Object, "status", "restartedAt"); at == "" {
		return fmt.Errorf("status.restartedAt not set")
	}
	return nil
}, world: func(w *world) error {
	at, _, _ := unstructured.NestedString(w.rollouts[0].Object, "status", "restartedAt")
	t, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return err
	}
	for _, p := range w.pods {
		if p.GetDeletionTimestamp() != nil {
			continue
		}
		if p.GetCreationTimestamp().Time.Before(t) {
			return fmt.Errorf("pod %s created before the restart", p.GetName())
		}
	}
	return nil
}}

// healthyWith: healthy, and the stable ReplicaSet runs image (a condition
// that a Rollout still healthy from before an update cannot satisfy).
func healthyWith(image string) cond {
	return cond{desc: "healthy with " + image, ok: healthy.ok, world: func(w *world) error {
		stable, _, _ := unstructured.NestedString(w.rollouts[0].Object, "status", "stableRS")
		for _, rs := range w.replicaSets {
			if rs.GetLabels()[hashLabel] != stable {
				continue
			}
			cs, _, _ := unstructured.NestedSlice(rs.Object, "spec", "template", "spec", "containers")
			if len(cs) > 0 && cs[0].(map[string]any)["image"] == image {
				return nil
			}
		}
		return fmt.Errorf("stable ReplicaSet %q does not run %s", stable, image)
	}}
}

// anyOf holds when one of cs does.
func anyOf(cs ...cond) cond {
	var descs []string
	for _, c := range cs {
		descs = append(descs, c.desc)
	}
	return cond{desc: strings.Join(descs, " or "), ok: func(r *unstructured.Unstructured) error { return nil },
		world: func(w *world) error {
			var errs []string
			for _, c := range cs {
				err := w.ready(c)
				if err == nil {
					return nil
				}
				errs = append(errs, err.Error())
			}
			return errors.New(strings.Join(errs, "; "))
		}}
}

func moreBlueGreenScenarios() []scenario {
	return []scenario{{
		// The controller's pause ends by itself after autoPromotionSeconds.
		name:    "bluegreen-autopromotion-seconds",
		ci:      true,
		pre:     bgServices,
		yaml:    rollout(2, blueGreen("autoPromotionSeconds: 15", "scaleDownDelaySeconds: 20")),
		initial: healthy,
		steps: []step{
			{name: "set image", do: setImage("registry.example/app:v2"), until: bgPaused},
			{name: "auto promote", until: healthy},
			{name: "delay over", until: oldScaledDown},
		},
	}, {
		// The preview runs on one pod until promotion scales it to full.
		name:    "bluegreen-preview-replica-count",
		pre:     bgServices,
		yaml:    rollout(3, blueGreen("autoPromotionEnabled: false", "previewReplicaCount: 1", "scaleDownDelaySeconds: 20")),
		initial: healthy,
		steps: []step{
			{name: "set image", do: setImage("registry.example/app:v2"), until: bgPaused},
			{name: "promote", do: promote, until: healthy},
			{name: "delay over", until: oldScaledDown},
		},
	}, {
		// Three updates within the scale-down delay: only the newest old
		// ReplicaSet waits for its deadline, the others go at once.
		name:    "bluegreen-revision-limit",
		pre:     bgServices,
		yaml:    rollout(2, blueGreen("scaleDownDelaySeconds: 60", "scaleDownDelayRevisionLimit: 1")),
		initial: healthy,
		steps: []step{
			{name: "image v2", do: setImage("registry.example/app:v2"), until: healthyWith("registry.example/app:v2")},
			{name: "image v3", do: setImage("registry.example/app:v3"), until: healthyWith("registry.example/app:v3")},
			{name: "image v4", do: setImage("registry.example/app:v4"), until: healthyWith("registry.example/app:v4")},
		},
	}, {
		name:    "bluegreen-abort-retry",
		pre:     bgServices,
		yaml:    rollout(2, blueGreen("autoPromotionEnabled: false", "scaleDownDelaySeconds: 20")),
		initial: healthy,
		steps: []step{
			{name: "set image", do: setImage("registry.example/app:v2"), until: bgPaused},
			{name: "abort", do: abort, until: aborted},
			// Upstream skips the pause here (the aborted ReplicaSet still
			// carries its scale-down deadline): either outcome is observed
			// (improvements.go: bluegreen-retry-keeps-pause).
			{name: "retry", do: retry, until: anyOf(bgPaused, healthyWith("registry.example/app:v2"))},
			{name: "promote", do: promote, until: healthyWith("registry.example/app:v2")},
			{name: "delay over", until: oldScaledDown},
		},
	}, {
		name:    "bluegreen-restart",
		pre:     bgServices,
		yaml:    rollout(3, blueGreen("autoPromotionEnabled: false")),
		initial: healthy,
		steps: []step{
			{name: "restart", do: restart, until: restarted},
		},
	}, {
		// Undo within the scale-down delay goes back to a ReplicaSet that is
		// still scaled up: the pause is skipped.
		name:    "bluegreen-undo",
		ci:      true,
		pre:     bgServices,
		yaml:    rollout(2, blueGreen("autoPromotionEnabled: false", "scaleDownDelaySeconds: 60")),
		initial: healthy,
		steps: []step{
			{name: "set image", do: setImage("registry.example/app:v2"), until: bgPaused},
			{name: "promote", do: promote, until: healthy},
			{name: "undo", do: undo, until: healthyWith("registry.example/app:v1")},
		},
	}}
}
