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

// TestHoldWritesEachStepOnce: the fleet benchmark's Rollout (1 replica,
// setWeight 50, pause 5 s) through an update. The pass that starts the
// revision and the pass that ends the pause scale ReplicaSets and hold
// their status; the pass where the pause starts and the one where the old
// ReplicaSet is gone write it: 2 status writes where there were 4. A hold
// that the ReplicaSets do not end is written quietFor after it began.
func TestHoldWritesEachStepOnce(t *testing.T) {
	s := newSim(t, 1, weight(50), pauseFor("5"))
	s.run("v1", time.Minute)
	s.now = s.now.Add(time.Minute)
	var since time.Time
	hash := "v2"
	pass := func(what string, wantHold bool) Output {
		t.Helper()
		in := s.input(hash)
		in.HeldSince = since
		out := Canary(in)
		if out.Hold != wantHold {
			t.Fatalf("%s: hold %v, want %v (phase %s, step %v)", what, out.Hold, wantHold, out.Status.Phase, out.Status.CurrentStepIndex)
		}
		s.ro.Status = stored(out.Status)
		switch {
		case !out.Hold:
			since = time.Time{}
		case since.IsZero():
			since = s.now
		}
		return out
	}
	out := pass("the revision starts", true)
	if !out.CreateNew || out.RequeueAfter != quietFor {
		t.Fatalf("create %v, requeue %s: want a create and a requeue when the hold is due", out.CreateNew, out.RequeueAfter)
	}
	s.rs["v2"] = &ReplicaSet{Name: "web-v2", Hash: "v2", Revision: 2, Created: s.now, Spec: 1, Replicas: 1}
	s.now = s.now.Add(50 * time.Millisecond)
	pass("its pod is not available yet", true)
	s.rs["v2"].Ready, s.rs["v2"].Available = 1, 1
	s.now = s.now.Add(50 * time.Millisecond)
	out = pass("its pod is available: the pause starts", false)
	if len(out.Status.PauseConditions) != 1 || out.Status.CurrentPodHash != "v2" {
		t.Fatalf("pause conditions %v, current %q: want the pause of revision v2", out.Status.PauseConditions, out.Status.CurrentPodHash)
	}
	s.now = s.now.Add(5 * time.Second)
	out = pass("the pause ends, the old ReplicaSet scales down", true)
	if n, ok := out.Scale["web-v1"]; !ok || n != 0 || len(out.Status.PauseConditions) != 0 {
		t.Fatalf("scale %v, pause conditions %v: want web-v1 to 0 and the pause over", out.Scale, out.Status.PauseConditions)
	}
	s.rs["v1"].Spec = 0
	s.now = s.now.Add(50 * time.Millisecond)
	pass("the old pod is terminating", true)
	s.rs["v1"].Replicas, s.rs["v1"].Ready, s.rs["v1"].Available = 0, 0, 0
	s.now = s.now.Add(50 * time.Millisecond)
	out = pass("the old ReplicaSet is gone", false)
	if out.Status.Phase != rampv1.RolloutPhaseHealthy {
		t.Fatalf("phase %s, want Healthy", out.Status.Phase)
	}

	// A ReplicaSet that never gets there: the hold ends quietFor after it began.
	s.now, hash = s.now.Add(time.Minute), "v3"
	pass("v3 starts", true)
	s.rs["v3"] = &ReplicaSet{Name: "web-v3", Hash: "v3", Revision: 3, Created: s.now, Spec: 1, Replicas: 1}
	in := s.input("v3")
	in.HeldSince, in.Now = since, since.Add(quietFor)
	if out := Canary(in); out.Hold {
		t.Fatal("held beyond quietFor")
	}
}
