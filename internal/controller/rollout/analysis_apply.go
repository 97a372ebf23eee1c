package rollout

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// ownedRuns lists the AnalysisRuns the Rollout controls, from the cache.
func (r *Reconciler) ownedRuns(ctx context.Context, ro *rampv1.Rollout) ([]*rampv1.AnalysisRun, error) {
	var list rampv1.AnalysisRunList
	if err := r.Client.List(ctx, &list, client.InNamespace(ro.Namespace), client.MatchingFields{ownerIndex: string(ro.UID)}); err != nil {
		return nil, fmt.Errorf("list analysisruns of rollout %s/%s: %w", ro.Namespace, ro.Name, err)
	}
	runs := make([]*rampv1.AnalysisRun, 0, len(list.Items))
	for i := range list.Items {
		runs = append(runs, &list.Items[i])
	}
	return runs, nil
}

func toPlanRuns(runs []*rampv1.AnalysisRun, notReused map[string]string) map[string]plan.Run {
	out := make(map[string]plan.Run, len(runs))
	for _, ar := range runs {
		run := plan.Run{Name: ar.Name, Type: plan.RunType(ar.Labels[rampv1.RolloutTypeLabel]), Hash: ar.Labels[rampv1.DefaultRolloutUniqueLabelKey],
			Phase: ar.Status.Phase, Message: ar.Status.Message, Terminating: ar.Spec.Terminate,
			Created: ar.CreationTimestamp.Time, Deleting: ar.DeletionTimestamp != nil, NotReused: notReused[ar.Name] != ""}
		if v, err := strconv.ParseInt(ar.Labels[rampv1.RolloutCanaryStepIndexLabel], 10, 32); err == nil {
			step := int32(v)
			run.StepIndex = &step
		}
		out[ar.Name] = run
	}
	return out
}

// analysisUse is one RolloutAnalysis in a Rollout's spec, with its path.
type analysisUse struct {
	field string
	a     *rampv1.RolloutAnalysis
}

// analysesOf lists every RolloutAnalysis the Rollout's strategy names:
// canary background and steps, blue-green pre and post promotion.
func analysesOf(ro *rampv1.Rollout) []analysisUse {
	var uses []analysisUse
	if c := ro.Spec.Strategy.Canary; c != nil {
		if c.Analysis != nil {
			uses = append(uses, analysisUse{"spec.strategy.canary.analysis", &c.Analysis.RolloutAnalysis})
		}
		for i, st := range c.Steps {
			if st.Analysis != nil {
				uses = append(uses, analysisUse{fmt.Sprintf("spec.strategy.canary.steps[%d].analysis", i), st.Analysis})
			}
		}
	}
	if b := ro.Spec.Strategy.BlueGreen; b != nil {
		if b.PrePromotionAnalysis != nil {
			uses = append(uses, analysisUse{"spec.strategy.blueGreen.prePromotionAnalysis", b.PrePromotionAnalysis})
		}
		if b.PostPromotionAnalysis != nil {
			uses = append(uses, analysisUse{"spec.strategy.blueGreen.postPromotionAnalysis", b.PostPromotionAnalysis})
		}
	}
	return uses
}

// validateAnalysis builds every run spec the Rollout may need, so a missing
// template or argument is InvalidSpec before anything runs; an error
// reading a template is returned for a retry.
func (r *Reconciler) validateAnalysis(ctx context.Context, ro *rampv1.Rollout) (string, error) {
	for _, u := range analysesOf(ro) {
		if _, err := r.runSpec(ctx, ro, "", *u.a, u.field); err != nil {
			if errors.As(err, new(readError)) {
				return "", err
			}
			return err.Error(), nil
		}
	}
	return "", nil
}

// applyRuns creates and stops AnalysisRuns as planned and trims their
// history; the names of the created runs go into out.Status.
func (r *Reconciler) applyRuns(ctx context.Context, ro *rampv1.Rollout, w *world, out *plan.Output) error {
	if w.invalid != "" {
		return nil
	}
	err := r.startRuns(ctx, ro, w, out)
	r.reportNotReused(ro, w)
	if err != nil {
		return err
	}
	if err := r.terminateRuns(ctx, w, out.TerminateRuns); err != nil {
		return err
	}
	if err := r.applyExperiments(ctx, ro, w, out); err != nil {
		return err
	}
	return r.deleteOld(ctx, "analysisrun", out.DeleteRuns, func(name string) (client.Object, bool) {
		ar := w.run(name)
		return ar, ar != nil
	})
}

// startRuns creates the runs the plan asks for and records the name each
// got in the planned status (plan.Output.RunStarted).
func (r *Reconciler) startRuns(ctx context.Context, ro *rampv1.Rollout, w *world, out *plan.Output) error {
	for _, start := range out.StartRuns {
		spec, err := r.runSpec(ctx, ro, w.hash, start.Analysis, "analysis")
		if err != nil {
			return fmt.Errorf("rollout %s/%s: %w", ro.Namespace, ro.Name, err)
		}
		name, err := r.createRun(ctx, ro, w, newRun(ro, w.hash, w.revision, start, spec))
		if err != nil {
			return err
		}
		r.expect.createdRS(runKey(ro.UID), name, r.Clock.Now())
		out.RunStarted(start.Type, name)
	}
	return nil
}

// createRun creates ar; when its name is taken by a run of the same role
// that is still running and is this Rollout's to take up (created by a pass
// whose status write did not land: plan.RunReuse), that run is reused;
// otherwise ".1", ".2", ... is appended (a retry). A running run of the
// name that is not taken up is reported (w.notReused).
func (r *Reconciler) createRun(ctx context.Context, ro *rampv1.Rollout, w *world, ar *rampv1.AnalysisRun) (string, error) {
	free := func(name string) nameUse {
		if _, bad := w.notReused[name]; bad {
			return nameSpent
		}
		return nameFree
	}
	taken := func(ctx context.Context, name string) (nameUse, error) {
		var old rampv1.AnalysisRun
		switch err := r.Client.Get(ctx, client.ObjectKey{Namespace: ar.Namespace, Name: name}, &old); {
		case apierrors.IsNotFound(err):
			return nameSpent, nil // gone since: its name goes to a later try
		case err != nil:
			return 0, fmt.Errorf("read analysisrun %s: %w", name, err)
		case old.Status.Phase.Completed() || old.Spec.Terminate || old.DeletionTimestamp != nil:
			return nameSpent, nil // an earlier try's
		case !sameRole(&old, ar):
			w.notReuse(name, "its rollout-type, step-index or pod-template-hash labels are not those of the run wanted")
		default:
			why := plan.RunReuse(&old, ro.UID, ar.Annotations[rampv1.RunSpecHashAnnotation])
			if why == "" {
				return nameOurs, nil
			}
			w.notReuse(name, why)
		}
		return nameSpent, nil
	}
	if _, err := r.createFree(ctx, "analysisrun", ar, free, taken); err != nil {
		return "", err
	}
	return ar.Name, nil
}

// sameRole reports whether two runs are for the same revision and role.
func sameRole(a, b *rampv1.AnalysisRun) bool {
	for _, k := range []string{rampv1.DefaultRolloutUniqueLabelKey, rampv1.RolloutTypeLabel, rampv1.RolloutCanaryStepIndexLabel} {
		if a.Labels[k] != b.Labels[k] {
			return false
		}
	}
	return true
}

// terminateRuns sets spec.terminate on the runs the plan stops.
func (r *Reconciler) terminateRuns(ctx context.Context, w *world, names []string) error {
	for _, name := range names {
		ar := w.run(name)
		if ar == nil {
			continue
		}
		rv := ar.ResourceVersion
		patch := client.MergeFrom(ar.DeepCopy())
		ar.Spec.Terminate = true
		if err := r.Client.Patch(ctx, ar, patch); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("terminate analysisrun %s: %w", name, err)
		}
		r.expect.Wrote(ar.UID, rv, r.Clock.Now())
	}
	return nil
}

// runKey is the expectations key of the run a Rollout just created.
func runKey(uid types.UID) types.UID { return uid + "/analysisrun" }
