package plan

import (
	"strings"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func experimentStep() rampv1.CanaryStep {
	return rampv1.CanaryStep{Experiment: &rampv1.RolloutExperimentStep{Duration: "1m",
		Templates: []rampv1.RolloutExperimentTemplate{{Name: "baseline", SpecRef: rampv1.StableSpecRef}, {Name: "canary", SpecRef: rampv1.CanarySpecRef}}}}
}

// TestCanaryExperimentStep: the step starts one Experiment for the
// revision and waits for it; Successful goes on, Failed aborts with its
// verdict, and a full promotion terminates a running one.
func TestCanaryExperimentStep(t *testing.T) {
	for _, tc := range []struct {
		name    string
		act     func(s *sim, name string)
		healthy bool
	}{
		{name: "successful", healthy: true, act: func(s *sim, name string) {
			x := s.exps[name]
			x.Phase = rampv1.AnalysisPhaseSuccessful
			s.exps[name] = x
		}},
		{name: "failed", act: func(s *sim, name string) {
			x := s.exps[name]
			x.Phase, x.Message = rampv1.AnalysisPhaseFailed, `analysis "check" failed`
			s.exps[name] = x
		}},
		{name: "promoted in full", healthy: true, act: func(s *sim, name string) { s.ro.Status.PromoteFull = true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t, 4, weight(50), experimentStep(), weight(100))
			s.run("v1", time.Minute)
			s.ro.Generation++
			s.run("v2", time.Minute)
			st := s.ro.Status
			if len(s.exps) != 1 || *st.CurrentStepIndex != 1 || st.Canary.CurrentExperiment != "web-v2-2-1" {
				t.Fatalf("experiments %v, step %d, currentExperiment %q; want one, web-v2-2-1, at step 1",
					s.exps, *st.CurrentStepIndex, st.Canary.CurrentExperiment)
			}
			tc.act(s, "web-v2-2-1")
			s.run("v2", time.Minute)
			st = s.ro.Status
			switch {
			case tc.healthy && (st.StableRS != "v2" || st.Phase != rampv1.RolloutPhaseHealthy):
				t.Errorf("stableRS %s phase %s, want v2 Healthy", st.StableRS, st.Phase)
			case !tc.healthy && (!st.Abort || !strings.Contains(st.Message, `Experiment web-v2-2-1 Failed: analysis "check" failed`)):
				t.Errorf("abort %v message %q, want aborted with the Experiment's verdict", st.Abort, st.Message)
			}
			if tc.name == "successful" && st.Canary.CurrentExperiment != "" {
				t.Errorf("currentExperiment %q after the step, want none", st.Canary.CurrentExperiment)
			}
			if x := s.exps["web-v2-2-1"]; !x.Phase.Completed() || len(s.exps) != 1 {
				t.Errorf("experiments %v: want the one, ended", s.exps)
			}
		})
	}
}

// TestCanaryExperimentRetry: after an Experiment fails and the update is
// retried, the step starts a new Experiment instead of judging the failed
// one again.
func TestCanaryExperimentRetry(t *testing.T) {
	s := newSim(t, 4, weight(50), experimentStep(), weight(100))
	s.run("v1", time.Minute)
	s.ro.Generation++
	s.run("v2", time.Minute)
	x := s.exps["web-v2-2-1"]
	x.Phase = rampv1.AnalysisPhaseFailed
	s.exps["web-v2-2-1"] = x
	s.run("v2", time.Minute)
	if !s.ro.Status.Abort {
		t.Fatalf("not aborted: %+v", s.ro.Status)
	}
	s.ro.Status.Abort = false // retry, as the plugin does
	s.run("v2", time.Minute)
	st := s.ro.Status
	if st.Abort || *st.CurrentStepIndex != 1 || st.Canary.CurrentExperiment != "web-v2-2-1.1" || len(s.exps) != 2 {
		t.Errorf("after retry: abort %v, step %d, currentExperiment %q, experiments %v; want a second Experiment at step 1",
			st.Abort, *st.CurrentStepIndex, st.Canary.CurrentExperiment, s.exps)
	}
}
