package plan

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestStepsHashAsUpstream: status.currentStepHash is the value Argo
// Rollouts v1.9.1 computes for the same steps (the table is written by its
// own code: cd test/upstream && go run ./cmd/stephashes > ../../internal/plan/testdata/upstream-step-hashes.json),
// so that neither controller restarts the steps of a Rollout it takes over.
func TestStepsHashAsUpstream(t *testing.T) {
	b, err := os.ReadFile("testdata/upstream-step-hashes.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Steps json.RawMessage `json:"steps"`
		Hash  string          `json:"hash"`
	}
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 10 {
		t.Fatalf("%d rows, want at least 10", len(rows))
	}
	for _, r := range rows {
		var steps []rampv1.CanaryStep
		if err := json.Unmarshal(r.Steps, &steps); err != nil {
			t.Fatalf("%s: %v", r.Steps, err)
		}
		if got := StepsHash(steps); got != r.Hash {
			t.Errorf("steps %s: hash %s, upstream's %s", r.Steps, got, r.Hash)
		}
	}
}

// TestLegacyStepsHashKeepsStep: a Rollout paused at its second pause whose
// status holds the step hash of an earlier Ramp stays there (edited steps
// would start over and stop at the first pause).
func TestLegacyStepsHashKeepsStep(t *testing.T) {
	s := newSim(t, 4, weight(25), pauseForever(), weight(75), pauseForever())
	s.run("v1", time.Minute)
	s.run("v2", time.Minute)
	s.ro.Status.PauseConditions = nil // promote
	s.run("v2", time.Minute)
	if idx := s.ro.Status.CurrentStepIndex; idx == nil || *idx != 3 {
		t.Fatalf("not paused at step 3: %+v", s.ro.Status)
	}
	s.ro.Status.CurrentStepHash = legacyStepsHash(s.ro.Spec.Strategy.Canary.Steps)
	st := s.plan(s.input("v2")).Status
	if idx := st.CurrentStepIndex; idx == nil || *idx != 3 || st.CurrentStepHash != StepsHash(s.ro.Spec.Strategy.Canary.Steps) {
		t.Errorf("after the upgrade: step %v, hash %s", st.CurrentStepIndex, st.CurrentStepHash)
	}
}
