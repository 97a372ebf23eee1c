//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// podRoles waits until every live pod of hash carries exactly the role
// label and phase annotation wanted ("" = absent) and returns their UIDs.
func podRoles(t *testing.T, ns, app, hash, role, phase string) []types.UID {
	t.Helper()
	var uids []types.UID
	eventually(t, 60*time.Second, fmt.Sprintf("pods of %s have role %q, phase %q", hash, role, phase), func() error {
		var pods corev1.PodList
		if err := env.client.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabels{"app": app, hashLabel: hash}); err != nil {
			return err
		}
		uids = nil
		for _, p := range pods.Items {
			if p.DeletionTimestamp != nil {
				continue
			}
			if p.Labels["role"] != role || p.Annotations["phase"] != phase {
				return fmt.Errorf("pod %s: role %q, phase %q", p.Name, p.Labels["role"], p.Annotations["phase"])
			}
			uids = append(uids, p.UID)
		}
		if len(uids) == 0 {
			return fmt.Errorf("no pods")
		}
		slices.Sort(uids)
		return nil
	})
	return uids
}

func containsAll(have, want []types.UID) bool {
	for _, u := range want {
		if !slices.Contains(have, u) {
			return false
		}
	}
	return true
}

// templateRole waits until the ReplicaSet of hash creates pods with role.
func templateRole(t *testing.T, ns, name, hash, role string) {
	t.Helper()
	eventually(t, 30*time.Second, fmt.Sprintf("ReplicaSet %s-%s's template has role %q", name, hash, role), func() error {
		var rs appsv1.ReplicaSet
		if err := env.client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name + "-" + hash}, &rs); err != nil {
			return err
		}
		if got := rs.Spec.Template.Labels["role"]; got != role {
			return fmt.Errorf("template role %q", got)
		}
		if _, ok := rs.Labels["role"]; ok {
			return fmt.Errorf("the ReplicaSet itself is labelled: %v", rs.Labels)
		}
		return nil
	})
}

// TestEphemeralMetadataCanary: canaryMetadata labels and annotates the
// update's pods, stableMetadata the stable ones; at promotion the canary's
// pods switch to the stable metadata in place (same pods) and the
// canary-only annotation goes. The pod-template hash ignores it all.
func TestEphemeralMetadataCanary(t *testing.T) {
	t.Parallel()
	ns, name := namespace(t, "meta-canary"), "web"
	apply(t, ns, rolloutYAML{name: name, replicas: 2, canary: `canaryMetadata: {labels: {role: canary}, annotations: {phase: canary}}
stableMetadata: {labels: {role: stable}}
steps: [{setWeight: 50}, {pause: {}}]`}.String())
	v1 := waitHealthy(t, ns, name, "", 2).Status.StableRS
	podRoles(t, ns, name, v1, "stable", "")
	templateRole(t, ns, name, v1, "stable")

	setImage(t, ns, name, "app", "registry.example/app:v2")
	v2 := waitRollout(t, ns, name, 60*time.Second, "paused at step 1", pausedAt(1)).Status.CurrentPodHash
	canaryPods := podRoles(t, ns, name, v2, "canary", "canary")
	podRoles(t, ns, name, v1, "stable", "")
	templateRole(t, ns, name, v2, "canary")

	patchStatus(t, ns, name, `{"status":{"pauseConditions":null}}`)
	waitHealthy(t, ns, name, v2, 2)
	stablePods := podRoles(t, ns, name, v2, "stable", "")
	templateRole(t, ns, name, v2, "stable")
	if !containsAll(stablePods, canaryPods) {
		t.Errorf("the canary's pods %v were replaced (%v), not relabelled in place", canaryPods, stablePods)
	}
	templateRole(t, ns, name, v1, "") // no role left: the old ReplicaSet loses it
	ro, err := getRollout(ns, name)
	if err != nil {
		t.Fatal(err)
	}
	if ro.Status.StableRS != v2 || ro.Status.CurrentPodHash != v2 {
		t.Errorf("hash changed with the metadata: stableRS %s, currentPodHash %s, want %s", ro.Status.StableRS, ro.Status.CurrentPodHash, v2)
	}
}

// TestEphemeralMetadataBlueGreen: previewMetadata on the preview pods,
// activeMetadata on the active ones, switched in place at promotion.
func TestEphemeralMetadataBlueGreen(t *testing.T) {
	t.Parallel()
	ns, name := namespace(t, "meta-bg"), "web"
	apply(t, ns, blueGreenYAML(name, 2, "", `autoPromotionEnabled: false
activeMetadata: {labels: {role: active}}
previewMetadata: {labels: {role: preview}, annotations: {phase: preview}}`))
	v1 := waitHealthy(t, ns, name, "", 2).Status.StableRS
	podRoles(t, ns, name, v1, "active", "")

	setImage(t, ns, name, "app", "registry.example/app:v2")
	v2 := waitRollout(t, ns, name, 60*time.Second, "paused with a preview", pausedBlueGreen).Status.CurrentPodHash
	preview := podRoles(t, ns, name, v2, "preview", "preview")
	podRoles(t, ns, name, v1, "active", "")

	patchStatus(t, ns, name, `{"status":{"pauseConditions":null}}`)
	waitHealthy(t, ns, name, v2, 2)
	active := podRoles(t, ns, name, v2, "active", "")
	if !containsAll(active, preview) {
		t.Errorf("the preview pods %v were replaced (%v), not relabelled in place", preview, active)
	}
}

// TestEphemeralMetadataInvalid: a label that would take the pods out of the
// selector is InvalidSpec naming the field; nothing is created.
func TestEphemeralMetadataInvalid(t *testing.T) {
	t.Parallel()
	ns, name := namespace(t, "meta-invalid"), "web"
	apply(t, ns, rolloutYAML{name: name, replicas: 1, canary: "canaryMetadata: {labels: {app: other}}"}.String())
	waitRollout(t, ns, name, 30*time.Second, "InvalidSpec naming canaryMetadata", func(ro *rampv1.Rollout) error {
		c := condition(ro, rampv1.RolloutInvalidSpec)
		want := `spec.strategy.canary.canaryMetadata.labels.app: "other" would take the pods out of spec.selector (app=web)`
		if c == nil || c.Message != want {
			return fmt.Errorf("InvalidSpec %+v, want %q", c, want)
		}
		return nil
	})
	rss, err := replicaSets(ns, name)
	if err != nil {
		t.Fatal(err)
	}
	if len(rss) != 0 {
		t.Errorf("ReplicaSets created for an invalid spec: %v", slices.Collect(maps.Keys(rss)))
	}
}
