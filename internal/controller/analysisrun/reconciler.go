// Package analysisrun reconciles AnalysisRuns: it takes the measurements
// that are due (internal/analysis decides which and when), through the
// provider registered for each metric, records them, assesses the run and
// writes one status patch, then asks to be woken exactly when the next
// measurement is due.
package analysisrun

import (
	"context"
	"fmt"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/registry"
)

// Reconciler reconciles AnalysisRun objects.
type Reconciler struct {
	Client client.Client
	// Secrets reads the Secrets named by secretKeyRef arguments. It should
	// be a live reader (the manager's APIReader): Ramp does not cache
	// Secrets, and reads one only when a measurement that needs it is due.
	Secrets   client.Reader
	Providers *registry.Registry[provider.Provider]
	Clock     clock.PassiveClock
	Evaluator *analysis.Evaluator

	finishes finishTimes
}

// +kubebuilder:rbac:groups=argoproj.io,resources=analysisruns,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get

// Reconcile takes the due measurements of one run and records them.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	run := &rampv1.AnalysisRun{}
	if err := r.Client.Get(ctx, req.NamespacedName, run); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if run.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	now := r.Clock.Now()
	if run.Status.Phase.Completed() {
		return r.expire(ctx, run, now)
	}
	status := run.Status.DeepCopy()
	if status.Phase == "" {
		status.Phase = rampv1.AnalysisPhasePending
	}
	if err := r.validate(run); err != nil {
		stamp := metaNow(now)
		status.Phase, status.Message, status.StartedAt, status.CompletedAt = rampv1.AnalysisPhaseError, fmt.Sprintf(rampv1.AnalysisMessageSpecInvalid, err), orNow(status.StartedAt, stamp), &stamp
		return ctrl.Result{}, r.gone(run, r.patchStatus(ctx, run, status))
	}
	spec := analysis.ResolveKnown(run.Spec)                                      // {{args.x}} in count, interval, limits
	tasks, _ := analysis.Tasks(spec, *r.finishes.schedule(run.UID, status), now) // an invalid spec: Assess ends the run in Error
	if len(tasks) > 0 {
		r.measure(ctx, run, status, tasks, now)
	}
	view := r.finishes.schedule(run.UID, status) // exact finish times for the wake-up
	next, err := analysis.Assess(spec, view, now)
	if err == nil {
		_, err = analysis.Assess(spec, status, now) // what is written: times as stored
	}
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("assess analysisrun %s: %w", req, err)
	}
	if err := r.gone(run, r.patchStatus(ctx, run, status)); err != nil {
		if apierrors.IsConflict(err) {
			return ctrl.Result{}, nil // the run changed under us; that change queues the next pass
		}
		return ctrl.Result{}, fmt.Errorf("patch status of analysisrun %s: %w", req, err)
	}
	if status.Phase.Completed() {
		r.finishes.forget(run.UID)
		log.FromContext(ctx).V(1).Info("analysis run completed", "phase", status.Phase, "message", status.Message)
		return r.expire(ctx, run, now)
	}
	if next.IsZero() {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{RequeueAfter: max(next.Sub(now), time.Millisecond)}, nil
}

// validate reports a spec the run can never take a measurement of: a metric
// whose provider is not registered in this controller.
func (r *Reconciler) validate(run *rampv1.AnalysisRun) error {
	for i, m := range run.Spec.Metrics {
		name := provider.Name(m.Provider)
		if name == "" {
			continue // ValidateMetrics (in Assess) names this
		}
		if msg := provider.Unsupported(name); msg != "" {
			return fmt.Errorf("metrics[%d] %q: %s", i, m.Name, msg)
		}
		if _, err := r.Providers.Get(name); err != nil {
			return fmt.Errorf("metrics[%d] %q: %w", i, m.Name, err)
		}
	}
	return nil
}

// patchStatus writes status when it differs, with an optimistic lock so a
// pass that read a stale run never overwrites a newer measurement.
func (r *Reconciler) patchStatus(ctx context.Context, run *rampv1.AnalysisRun, status *rampv1.AnalysisRunStatus) error {
	if apiequality.Semantic.DeepEqual(run.Status, *status) {
		return nil
	}
	patch := client.MergeFromWithOptions(run.DeepCopy(), client.MergeFromWithOptimisticLock{})
	run.Status = *status
	return r.Client.Patch(ctx, run, patch)
}

// gone turns the NotFound of a write to a run deleted since the read (its
// owner deleted it, a namespace torn down) into nothing to do, forgetting
// the run.
func (r *Reconciler) gone(run *rampv1.AnalysisRun, err error) error {
	if apierrors.IsNotFound(err) {
		r.finishes.forget(run.UID)
		return nil
	}
	return err
}

// expire deletes a completed run once its spec.ttlStrategy says so.
func (r *Reconciler) expire(ctx context.Context, run *rampv1.AnalysisRun, now time.Time) (ctrl.Result, error) {
	ttl := run.Spec.TTLStrategy
	if ttl == nil || run.Status.CompletedAt == nil {
		return ctrl.Result{}, nil
	}
	secs := ttl.SecondsAfterCompletion
	switch {
	case run.Status.Phase == rampv1.AnalysisPhaseSuccessful && ttl.SecondsAfterSuccess != nil:
		secs = ttl.SecondsAfterSuccess
	case run.Status.Phase != rampv1.AnalysisPhaseSuccessful && ttl.SecondsAfterFailure != nil:
		secs = ttl.SecondsAfterFailure
	}
	if secs == nil || *secs < 0 {
		return ctrl.Result{}, nil // a negative TTL ended the run in Error (analysis.ValidateRun): keep it to be read
	}
	if wait := run.Status.CompletedAt.Add(rampv1.SaturatingSeconds(int64(*secs))).Sub(now); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	return ctrl.Result{}, client.IgnoreNotFound(r.Client.Delete(ctx, run, client.Preconditions{UID: &run.UID}))
}
