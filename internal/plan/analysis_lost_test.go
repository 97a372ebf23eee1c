package plan

import (
	"slices"
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestRunWithLostStatus: a run started by a pass whose status write was
// lost (going, of this revision and role, named by no status field) is
// the run the step waits for: recorded, kept, not started again. Runs of
// another step, revision or role, ended or being stopped, are not it.
func TestRunWithLostStatus(t *testing.T) {
	step1, step0 := int32(1), int32(0)
	for _, tc := range []struct {
		name      string
		run       Run
		adopted   bool
		terminate bool
	}{
		{"this try's, going", Run{Type: RunStep, Hash: "v2", StepIndex: &step1, Phase: rampv1.AnalysisPhaseRunning}, true, false},
		{"this try's, pending", Run{Type: RunStep, Hash: "v2", StepIndex: &step1}, true, false},
		{"another step's", Run{Type: RunStep, Hash: "v2", StepIndex: &step0, Phase: rampv1.AnalysisPhaseRunning}, false, true},
		{"another revision's", Run{Type: RunStep, Hash: "v1", StepIndex: &step1, Phase: rampv1.AnalysisPhaseRunning}, false, true},
		{"a background run", Run{Type: RunBackground, Hash: "v2", Phase: rampv1.AnalysisPhaseRunning}, false, true},
		{"being stopped", Run{Type: RunStep, Hash: "v2", StepIndex: &step1, Phase: rampv1.AnalysisPhaseRunning, Terminating: true}, false, false},
		{"ended", Run{Type: RunStep, Hash: "v2", StepIndex: &step1, Phase: rampv1.AnalysisPhaseFailed}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t, 4, weight(25), analysisStep(), weight(50))
			deployV1(s)
			s.rs["v2"] = &ReplicaSet{Name: "web-v2", Hash: "v2", Revision: 2, Spec: 1, Replicas: 1, Ready: 1, Available: 1}
			s.rs["v1"].Spec, s.rs["v1"].Replicas, s.rs["v1"].Ready, s.rs["v1"].Available = 3, 3, 3, 3
			st := &s.ro.Status
			st.CurrentPodHash, st.CurrentStepIndex, st.CurrentStepHash = "v2", ptrTo(int32(1)), StepsHash(s.ro.Spec.Strategy.Canary.Steps)
			tc.run.Name = "lost"
			s.runs = map[string]Run{"lost": tc.run}
			out := Canary(s.input("v2"))
			ref := out.Status.Canary.CurrentStepAnalysisRunStatus
			if adopted := ref != nil && ref.Name == "lost"; adopted != tc.adopted || (len(out.StartRuns) == 0) != tc.adopted {
				t.Errorf("status ref %+v, runs to start %+v; want the lost run adopted: %v", ref, out.StartRuns, tc.adopted)
			}
			if got := slices.Contains(out.TerminateRuns, "lost"); got != tc.terminate {
				t.Errorf("terminate %q, want the lost run stopped: %v", out.TerminateRuns, tc.terminate)
			}
		})
	}
}
