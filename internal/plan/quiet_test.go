package plan

import (
	"testing"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestQuietKeepsCountsAndTheirMessage: while the new ReplicaSet's pods come
// up, a pass that only moves replica counts (and with them the Progressing
// phase's message) keeps the stored status, so nothing is written; the
// pass where they settle, or one quietFor after the last write, writes
// them.
func TestQuietKeepsCountsAndTheirMessage(t *testing.T) {
	s := newSim(t, 1, weight(50), pauseFor("5")) // the fleet benchmark's Rollout
	s.run("v1", time.Minute)
	s.now = s.now.Add(time.Minute)
	out := Canary(s.input("v2"))
	if !out.CreateNew || out.Status.Message != rampv1.RolloutPhaseMessageMoreToUpdate {
		t.Fatalf("first pass of v2: create %v, message %q; want a create and %q", out.CreateNew, out.Status.Message, rampv1.RolloutPhaseMessageMoreToUpdate)
	}
	s.ro.Status = stored(out.Status)
	// The ReplicaSet exists with its one pod created, not yet available.
	s.rs["v2"] = &ReplicaSet{Name: "web-v2", Hash: "v2", Revision: 2, Created: s.now, Spec: 1, Replicas: 1}
	for _, tc := range []struct {
		name  string
		after time.Duration
		quiet bool
	}{
		{"counts moved within quietFor", 100 * time.Millisecond, true},
		{"counts moved quietFor after the last write", quietFor, false},
	} {
		in := s.input("v2")
		in.Now = s.now.Add(tc.after)
		out := Canary(in)
		quiet := apiequality.Semantic.DeepEqual(out.Status, s.ro.Status)
		if quiet != tc.quiet {
			t.Errorf("%s: status kept %v, want %v (message %q, %d replicas)", tc.name, quiet, tc.quiet, out.Status.Message, out.Status.Replicas)
		}
		if !tc.quiet && out.Status.Message != rampv1.RolloutPhaseMessageBecomingAvailable {
			t.Errorf("%s: message %q, want %q", tc.name, out.Status.Message, rampv1.RolloutPhaseMessageBecomingAvailable)
		}
		if tc.quiet && (out.RequeueAfter <= 0 || out.RequeueAfter > quietFor) {
			t.Errorf("%s: requeue after %s, want within %s to flush the counts", tc.name, out.RequeueAfter, quietFor)
		}
	}
}
