package plan

import (
	"strings"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func analysisStep() rampv1.CanaryStep {
	return rampv1.CanaryStep{Analysis: &rampv1.RolloutAnalysis{Templates: []rampv1.AnalysisTemplateRef{{TemplateName: "t"}}}}
}

func deployV1(s *sim) {
	s.run("v1", time.Minute)
	s.log = nil
}

func TestCanaryStepAnalysis(t *testing.T) {
	s := newSim(t, 4, weight(25), analysisStep(), weight(50))
	deployV1(s)
	s.run("v2", time.Minute)
	s.expect(`
  0.02s event RolloutUpdated
  0.02s event NewReplicaSetCreated
  0.02s event RolloutNotCompleted
  0.02s v1=3 v2=1 step=0 phase=Progressing stable=v1
  0.03s run web-v2-Step1 started
  0.03s event RolloutStepCompleted
  0.03s v1=3 v2=1 step=1 phase=Progressing stable=v1
  0.04s event AnalysisRunRunning`)
	if ref := s.ro.Status.Canary.CurrentStepAnalysisRunStatus; ref == nil || ref.Name != "web-v2-Step1" {
		t.Fatalf("currentStepAnalysisRunStatus = %+v", ref)
	}

	s.finish("web-v2-Step1", rampv1.AnalysisPhaseSuccessful, "")
	s.run("v2", time.Minute)
	if got := *s.ro.Status.CurrentStepIndex; got != 3 || s.ro.Status.StableRS != "v2" {
		t.Errorf("after a successful step run: step %d, stable %s; want 3, v2", got, s.ro.Status.StableRS)
	}
	if ref := s.ro.Status.Canary.CurrentStepAnalysisRunStatus; ref != nil {
		t.Errorf("past the analysis step, its run status is kept: %+v (upstream drops it)", ref)
	}
}

func TestCanaryStepAnalysisFailedAborts(t *testing.T) {
	s := newSim(t, 4, weight(25), analysisStep(), weight(50))
	deployV1(s)
	s.run("v2", time.Minute)
	msg := `Metric "success-rate" assessed Failed due to failed (4) > failureLimit (3)`
	s.finish("web-v2-Step1", rampv1.AnalysisPhaseFailed, msg)
	s.run("v2", time.Minute)
	st := s.ro.Status
	if !st.Abort || st.Phase != rampv1.RolloutPhaseDegraded || !strings.Contains(st.Message, msg) {
		t.Fatalf("abort %v, phase %s, message %q; want aborted Degraded naming the metric", st.Abort, st.Phase, st.Message)
	}
	if v2 := s.rs["v2"]; v2.Spec != 0 || s.rs["v1"].Spec != 4 {
		t.Errorf("after abort v1=%d v2=%d, want 4 and 0", s.rs["v1"].Spec, v2.Spec)
	}
	// retry: a new run for the step, never the failed one
	s.ro.Status.Abort = false
	s.log = nil
	s.run("v2", time.Minute)
	if ref := s.ro.Status.Canary.CurrentStepAnalysisRunStatus; ref == nil || ref.Name != "web-v2-Step1.1" {
		t.Fatalf("after retry the step run is %+v, want a new run web-v2-Step1.1", ref)
	}
	if s.ro.Status.Abort {
		t.Error("the retry was aborted again by the old failed run")
	}
}

func TestCanaryInconclusivePausesUntilResumed(t *testing.T) {
	s := newSim(t, 4, weight(25), analysisStep(), weight(50))
	deployV1(s)
	s.run("v2", time.Minute)
	s.finish("web-v2-Step1", rampv1.AnalysisPhaseInconclusive, "")
	s.run("v2", time.Minute)
	st := s.ro.Status
	if findPause(&st, rampv1.PauseReasonInconclusiveAnalysis) == nil || st.Phase != rampv1.RolloutPhasePaused || *st.CurrentStepIndex != 1 {
		t.Fatalf("inconclusive run: pause %v, phase %s, step %d; want paused InconclusiveAnalysisRun at step 1", st.PauseConditions, st.Phase, *st.CurrentStepIndex)
	}
	s.ro.Status.PauseConditions = nil // promote
	s.run("v2", time.Minute)
	if got := *s.ro.Status.CurrentStepIndex; got != 3 || len(s.ro.Status.PauseConditions) != 0 {
		t.Errorf("after resume: step %d, pauses %v; want 3 and none", got, s.ro.Status.PauseConditions)
	}
}

func TestCanaryBackgroundAnalysis(t *testing.T) {
	s := newSim(t, 4, weight(25), pauseForever(), weight(50), pauseForever())
	two := int32(2)
	s.ro.Spec.Strategy.Canary.Analysis = &rampv1.RolloutAnalysisBackground{StartingStep: &two,
		RolloutAnalysis: rampv1.RolloutAnalysis{Templates: []rampv1.AnalysisTemplateRef{{TemplateName: "t"}}}}
	deployV1(s)
	if len(s.runs) != 0 {
		t.Fatalf("the first deploy started runs: %v", s.runs)
	}
	s.run("v2", time.Minute)
	if len(s.runs) != 0 {
		t.Fatalf("background analysis started before startingStep 2: %v", s.runs)
	}
	s.ro.Status.PauseConditions = nil
	s.run("v2", time.Minute)
	if ref := s.ro.Status.Canary.CurrentBackgroundAnalysisRunStatus; ref == nil || ref.Name != "web-v2-Background" {
		t.Fatalf("background run = %+v at step %d", ref, *s.ro.Status.CurrentStepIndex)
	}
	s.ro.Status.PauseConditions = nil
	s.run("v2", time.Minute)
	run := s.runs["web-v2-Background"]
	if s.ro.Status.StableRS != "v2" || !run.Terminating || run.Phase != rampv1.AnalysisPhaseSuccessful {
		t.Errorf("completed rollout: stable %s, background run %+v; want v2 and terminated Successful", s.ro.Status.StableRS, run)
	}
}

func TestCanaryBackgroundFailureAbortsAndTerminatesStepRun(t *testing.T) {
	s := newSim(t, 4, weight(25), analysisStep())
	s.ro.Spec.Strategy.Canary.Analysis = &rampv1.RolloutAnalysisBackground{
		RolloutAnalysis: rampv1.RolloutAnalysis{Templates: []rampv1.AnalysisTemplateRef{{TemplateName: "t"}}}}
	deployV1(s)
	s.run("v2", time.Minute)
	s.finish("web-v2-Background", rampv1.AnalysisPhaseError, "consecutive errors")
	s.run("v2", time.Minute)
	if !s.ro.Status.Abort || !s.runs["web-v2-Step1"].Terminating {
		t.Errorf("abort %v, step run %+v; want aborted and the step run terminated", s.ro.Status.Abort, s.runs["web-v2-Step1"])
	}
}
