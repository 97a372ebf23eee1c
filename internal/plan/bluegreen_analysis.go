package plan

import (
	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func hasAnalysis(a *rampv1.RolloutAnalysis) bool { return a != nil && len(a.Templates) > 0 }

// prePromotion runs prePromotionAnalysis once the preview ReplicaSet is
// available at its preview size (in parallel with a BlueGreenPause); it
// reports whether the active Service may switch. Failed or Error aborts:
// the active Service never moved.
func (r *blueGreenRun) prePromotion() bool {
	a, s := r.b.PrePromotionAnalysis, &r.s
	if !hasAnalysis(a) {
		return true
	}
	prev := s.BlueGreen.PrePromotionAnalysisRunStatus
	if r.stable() || r.aborted() || r.promoted() {
		s.BlueGreen.PrePromotionAnalysisRunStatus = r.refresh(prev)
		return r.promoted()
	}
	nw, size := r.in.New, r.previewSize()
	started := r.run(prev, RunPrePromotion, nil) != nil || r.unrecorded(RunPrePromotion, nil) != nil
	if !started && (nw == nil || nw.Spec != size || nw.Available < size) {
		return false // the preview is not ready to be measured yet
	}
	ref, run := r.ensureRun(prev, RunPrePromotion, nil, *a)
	s.BlueGreen.PrePromotionAnalysisRunStatus = ref
	return r.judgeRun(run, prev)
}

// postPromotion runs postPromotionAnalysis once the active Service selects
// the new ReplicaSet; the previous ReplicaSet stays stable and at full size
// until it succeeds. Failed or Error aborts: the active Service goes back to
// the stable ReplicaSet.
func (r *blueGreenRun) postPromotion() {
	a, s := r.b.PostPromotionAnalysis, &r.s
	if !hasAnalysis(a) {
		return
	}
	prev := s.BlueGreen.PostPromotionAnalysisRunStatus
	if r.stable() || r.aborted() || !r.promoted() {
		s.BlueGreen.PostPromotionAnalysisRunStatus = r.refresh(prev)
		return
	}
	ref, run := r.ensureRun(prev, RunPostPromotion, nil, *a)
	s.BlueGreen.PostPromotionAnalysisRunStatus = ref
	switch {
	case r.judgeRun(run, prev):
		r.completePromotion()
	case r.aborted():
		s.BlueGreen.ActiveSelector = s.StableRS
	}
}
