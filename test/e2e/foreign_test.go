//go:build e2e

package e2e

import (
	"testing"
)

// TestForeignInstanceLeftAlone: a Rollout labelled for another controller
// instance (Argo Rollouts with --instance-id, say), with annotations Ramp
// does not know, is never written to by the shared controller, which tells
// so once in an Event (ForeignInstance), not again when the Rollout changes.
// Not parallel: every other controller a parallel test starts (its own
// instance id) reports the foreign Rollout too, each in its own Event.
func TestForeignInstanceLeftAlone(t *testing.T) {
	ns := namespace(t, "foreign")
	apply(t, ns, rolloutYAML{name: "other", replicas: 2, instance: "argo", canary: "steps: [{setWeight: 50}, {pause: {}}]"}.String())
	patch(t, ns, "other", "merge", `{"metadata":{"annotations":{"example.com/unknown":"x"}}}`)
	waitEvents(t, ns, "other", "ForeignInstance")
	before, err := getRollout(ns, "other")
	if err != nil {
		t.Fatal(err)
	}
	// A change to it, then a second foreign Rollout: once the second's
	// Event is there, the informer has delivered the change too (in order).
	patch(t, ns, "other", "merge", `{"metadata":{"annotations":{"example.com/unknown":"y"}}}`)
	apply(t, ns, rolloutYAML{name: "second", replicas: 1, instance: "argo"}.String())
	waitEvents(t, ns, "second", "ForeignInstance")
	if n, err := eventCount(ns, "other", "ForeignInstance"); err != nil || n != 1 {
		t.Errorf("%d ForeignInstance Events on rollout other (%v), want 1", n, err)
	}
	after, err := getRollout(ns, "other")
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case after.Status.Phase != "" || len(after.Status.Conditions) > 0 || after.Status.ObservedGeneration != "":
		t.Errorf("the foreign rollout got a status: %+v", after.Status)
	case len(after.Finalizers) > 0:
		t.Errorf("the foreign rollout got finalizers %v", after.Finalizers)
	case after.Annotations[revisionKey] != "" || before.Annotations[revisionKey] != "":
		t.Errorf("the foreign rollout got a revision annotation")
	case after.Annotations["example.com/unknown"] != "y":
		t.Errorf("annotations %v: the unknown one was touched", after.Annotations)
	}
	rss, err := replicaSets(ns, "other")
	if err != nil || len(rss) != 0 {
		t.Errorf("ReplicaSets %v (%v): the foreign rollout's pods were created", rss, err)
	}
}
