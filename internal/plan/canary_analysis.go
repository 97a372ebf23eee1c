package plan

import (
	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// stepAnalysis runs an analysis step: it starts the step's run and reports
// whether the step is done (the run Successful, or Inconclusive and
// resumed). A Failed or Error run aborts the update.
func (r *canaryRun) stepAnalysis(idx int32, a *rampv1.RolloutAnalysis) bool {
	prev := r.s.Canary.CurrentStepAnalysisRunStatus
	ref, run := r.ensureRun(prev, RunStep, &idx, *a)
	r.s.Canary.CurrentStepAnalysisRunStatus = ref
	return r.judgeRun(run, prev)
}

// forgetStepAnalysis drops the step run's status once the Rollout is no
// longer at an analysis step (the steps moved on, or the update completed),
// as upstream; an aborted update keeps it, to say which run aborted it.
func (r *canaryRun) forgetStepAnalysis() {
	s := &r.s
	if s.Abort || s.CurrentStepIndex == nil {
		return
	}
	if idx := int(*s.CurrentStepIndex); idx < len(r.steps) && r.steps[idx].Analysis != nil {
		return
	}
	s.Canary.CurrentStepAnalysisRunStatus = nil
}

// backgroundAnalysis runs spec.strategy.canary.analysis from startingStep
// while the update is in progress: Failed or Error aborts it, Inconclusive
// pauses it. Once the update completes or aborts, the run is terminated
// (terminateRuns) and its last state is kept in the status.
func (r *canaryRun) backgroundAnalysis() {
	bg := r.c.Analysis
	if bg == nil || len(bg.Templates) == 0 {
		return
	}
	s := &r.s
	prev := s.Canary.CurrentBackgroundAnalysisRunStatus
	if r.stable() || r.aborted() {
		s.Canary.CurrentBackgroundAnalysisRunStatus = r.refresh(prev)
		return
	}
	if bg.StartingStep != nil && *s.CurrentStepIndex < *bg.StartingStep {
		return
	}
	ref, run := r.ensureRun(prev, RunBackground, nil, bg.RolloutAnalysis)
	s.Canary.CurrentBackgroundAnalysisRunStatus = ref
	r.judgeRun(run, prev)
}
