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
// revision writes at once (step 0 must be seen); so does the pass where the
// pause starts. The pass that ends the pause, the last step, scales the old
// ReplicaSet down and holds its status until that ReplicaSet is gone, and
// Healthy is written with it: 3 status writes where there were 4. A hold
// that the ReplicaSets do not end is written quietFor after it began.
func TestHoldWritesEachStepOnce(t *testing.T) {
	s := newSim(t, 1, weight(50), pauseFor("5"))
	s.run("v1", time.Minute)
	s.now = s.now.Add(time.Minute)
	var since time.Time
	pass := func(what string, wantHold bool) Output {
		t.Helper()
		in := s.input("v2")
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
	out := pass("the revision starts: step 0", false)
	if !out.CreateNew || *out.Status.CurrentStepIndex != 0 {
		t.Fatalf("create %v, step %d: want a create at step 0", out.CreateNew, *out.Status.CurrentStepIndex)
	}
	s.rs["v2"] = &ReplicaSet{Name: "web-v2", Hash: "v2", Revision: 2, Created: s.now, Spec: 1, Replicas: 1, Ready: 1, Available: 1}
	s.now = s.now.Add(50 * time.Millisecond)
	out = pass("its pod is available: the pause starts", false)
	if len(out.Status.PauseConditions) != 1 || out.Status.CurrentPodHash != "v2" {
		t.Fatalf("pause conditions %v, current %q: want the pause of revision v2", out.Status.PauseConditions, out.Status.CurrentPodHash)
	}
	s.now = s.now.Add(5 * time.Second)
	out = pass("the pause ends, the old ReplicaSet scales down", true)
	if n, ok := out.Scale["web-v1"]; !ok || n != 0 || len(out.Status.PauseConditions) != 0 || out.RequeueAfter != quietFor {
		t.Fatalf("scale %v, pause conditions %v, requeue %s: want web-v1 to 0, the pause over, a requeue when the hold is due",
			out.Scale, out.Status.PauseConditions, out.RequeueAfter)
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

	// The old ReplicaSet never gets there: the hold ends quietFor after it began.
	s.now = s.now.Add(time.Minute)
	s.rs["v1"].Spec, s.rs["v1"].Replicas, s.rs["v1"].Ready, s.rs["v1"].Available = 1, 1, 1, 1
	s.ro.Status.StableRS, s.ro.Status.CurrentStepIndex = "v1", ptrTo(int32(1))
	s.ro.Status.PauseConditions = []rampv1.PauseCondition{{Reason: rampv1.PauseReasonCanaryPauseStep}}
	s.ro.Status.Canary.PauseStartTime = nil
	s.ro.Status.PauseConditions[0].StartTime.Time = s.now.Add(-10 * time.Second)
	pass("the pause ends again", true)
	in := s.input("v2")
	in.HeldSince, in.Now = since, since.Add(quietFor)
	if out := Canary(in); out.Hold {
		t.Fatal("held beyond quietFor")
	}
}
