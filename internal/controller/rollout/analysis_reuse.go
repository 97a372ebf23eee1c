package rollout

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// checkUnrecorded decides, for each run of the new revision still going
// that the status does not name (the planner takes such a run up as this
// try's: plan's unrecorded), whether it is this Rollout's to take up
// (plan.RunReuse against the spec its role would be created with). Those
// that are not are kept in w.notReused with the reason: the planner starts
// a new run instead of acting on their verdict, and applyRuns reports them.
func (r *Reconciler) checkUnrecorded(ctx context.Context, ro *rampv1.Rollout, w *world) error {
	recorded := map[string]bool{}
	for _, s := range []*rampv1.RolloutAnalysisRunStatus{ro.Status.Canary.CurrentStepAnalysisRunStatus, ro.Status.Canary.CurrentBackgroundAnalysisRunStatus,
		ro.Status.BlueGreen.PrePromotionAnalysisRunStatus, ro.Status.BlueGreen.PostPromotionAnalysisRunStatus} {
		if s != nil {
			recorded[s.Name] = true
		}
	}
	for _, ar := range w.runs {
		if recorded[ar.Name] || ar.Labels[rampv1.DefaultRolloutUniqueLabelKey] != w.hash || ar.Status.Phase.Completed() || ar.Spec.Terminate || ar.DeletionTimestamp != nil {
			continue
		}
		want, err := r.roleSpecHash(ctx, ro, w.hash, ar)
		if err != nil {
			return err
		}
		if why := plan.RunReuse(ar, ro.UID, want); why != "" {
			w.notReuse(ar.Name, why)
		}
	}
	return nil
}

// roleSpecHash is the spec hash of the run the Rollout would create for the
// role ar's labels give it ("" when the Rollout has no such analysis, or
// its spec cannot be built: never taken up). A read error is returned.
func (r *Reconciler) roleSpecHash(ctx context.Context, ro *rampv1.Rollout, hash string, ar *rampv1.AnalysisRun) (string, error) {
	var a *rampv1.RolloutAnalysis
	c, b := ro.Spec.Strategy.Canary, ro.Spec.Strategy.BlueGreen
	switch plan.RunType(ar.Labels[rampv1.RolloutTypeLabel]) {
	case plan.RunBackground:
		if c != nil && c.Analysis != nil {
			a = &c.Analysis.RolloutAnalysis
		}
	case plan.RunStep:
		if i, err := strconv.Atoi(ar.Labels[rampv1.RolloutCanaryStepIndexLabel]); err == nil && c != nil && i >= 0 && i < len(c.Steps) {
			a = c.Steps[i].Analysis
		}
	case plan.RunPrePromotion:
		if b != nil {
			a = b.PrePromotionAnalysis
		}
	case plan.RunPostPromotion:
		if b != nil {
			a = b.PostPromotionAnalysis
		}
	}
	if a == nil {
		return "", nil
	}
	spec, err := r.runSpec(ctx, ro, hash, *a, "analysis")
	if errors.As(err, new(readError)) {
		return "", err
	}
	if err != nil {
		return "", nil
	}
	return plan.RunSpecHash(spec), nil
}

// notReuse records that the run name is not taken up, and why (the first
// reason found stands).
func (w *world) notReuse(name, why string) {
	if w.notReused == nil {
		w.notReused = map[string]string{}
	}
	if _, seen := w.notReused[name]; !seen {
		w.notReused[name] = why
	}
}

// reportNotReused records one Warning Event per run not taken up this pass,
// naming it and why.
func (r *Reconciler) reportNotReused(ro *rampv1.Rollout, w *world) {
	for _, name := range slices.Sorted(maps.Keys(w.notReused)) {
		r.Recorder.Eventf(ro, nil, corev1.EventTypeWarning, rampv1.RunNotReusedReason, "Create",
			"%s", plan.NotReusedMessage(name, w.notReused[name]))
	}
}
