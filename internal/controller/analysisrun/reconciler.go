// Package analysisrun reconciles AnalysisRuns. A pass records the
// measurements that finished since the last one, assesses the run, writes
// one status patch, then starts the measurements that are due
// (internal/analysis decides which and when) in the background, through the
// provider registered for each metric, and asks to be woken exactly when the
// next one is due. A measurement never runs inside a reconcile worker: when
// it ends, the run is queued again and the next pass records it.
package analysisrun

import (
	"context"
	"fmt"
	"strings"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/controller/cachelag"
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
	// MaxConcurrentPerProvider bounds the measurements of one provider
	// running at once (DefaultMaxConcurrentPerProvider when 0).
	MaxConcurrentPerProvider int
	// MaxProviderTimeout bounds every measurement, whatever the metric's
	// own timeout says (DefaultMaxProviderTimeout when 0).
	MaxProviderTimeout time.Duration
	// SecretSelector, when set, is what a Secret's labels must match for a
	// secretKeyRef argument to read it.
	SecretSelector labels.Selector

	finishes finishTimes
	flights  flights
	writes   cachelag.Writes         // status patches the cache may not show yet
	events   chan event.GenericEvent // finished measurements queue their run
}

// Defaults of the bounds on measurements.
const (
	DefaultMaxConcurrentPerProvider = 20
	DefaultMaxProviderTimeout       = 60 * time.Second
)

func (r *Reconciler) perProvider() int {
	if r.MaxConcurrentPerProvider > 0 {
		return r.MaxConcurrentPerProvider
	}
	return DefaultMaxConcurrentPerProvider
}

func (r *Reconciler) providerTimeout() time.Duration {
	if r.MaxProviderTimeout > 0 {
		return r.MaxProviderTimeout
	}
	return DefaultMaxProviderTimeout
}

// +kubebuilder:rbac:groups=argoproj.io,resources=analysisruns,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get

// Reconcile records the finished measurements of one run, assesses it,
// writes its status and starts the measurements that are due.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	run := &rampv1.AnalysisRun{}
	if err := r.Client.Get(ctx, req.NamespacedName, run); err != nil {
		if apierrors.IsNotFound(err) {
			r.flights.forget(req.NamespacedName, "") // results of a deleted run are dropped
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if run.DeletionTimestamp != nil {
		r.flights.forget(req.NamespacedName, run.UID)
		r.writes.Forget(run.UID)
		return ctrl.Result{}, nil
	}
	now := r.Clock.Now()
	if r.writes.Stale(run.UID, run.ResourceVersion, now) {
		// The cache still holds the run as it was before our last status
		// patch: a pass from it would measure again what that patch
		// recorded. The patch's watch event wakes the run (the requeue is
		// a safety net).
		return ctrl.Result{RequeueAfter: cachelag.TTL}, nil
	}
	if run.Status.Phase.Completed() {
		r.flights.forget(req.NamespacedName, run.UID)
		return r.expire(ctx, run, now)
	}
	status := run.Status.DeepCopy()
	if status.Phase == "" {
		status.Phase = rampv1.AnalysisPhasePending
	}
	if err := r.validate(run); err != nil {
		stamp := metaNow(now)
		status.Phase, status.Message, status.StartedAt, status.CompletedAt = rampv1.AnalysisPhaseError, fmt.Sprintf(rampv1.AnalysisMessageSpecInvalid, err), orNow(status.StartedAt, stamp), &stamp
		return ctrl.Result{}, r.gone(run, r.writeStatus(ctx, run, status, now))
	}
	spec := analysis.ResolveKnown(run.Spec) // {{args.x}} in count, interval, limits
	written := r.collect(run, spec, status)
	if _, err := analysis.Assess(spec, status, now); err != nil {
		return ctrl.Result{}, fmt.Errorf("assess analysisrun %s: %w", req, err)
	}
	view := r.finishes.schedule(run.UID, status) // exact finish times for the schedule
	tasks, _ := analysis.Tasks(spec, *view, now) // an invalid spec: Assess ended the run in Error
	if err := r.writeStatus(ctx, run, status, now); err != nil {
		if apierrors.IsConflict(err) {
			return ctrl.Result{}, nil // the run changed under us; that change queues the next pass
		}
		if err := r.gone(run, err); err != nil {
			return ctrl.Result{}, fmt.Errorf("patch status of analysisrun %s: %w", req, err)
		}
		return ctrl.Result{}, nil // deleted meanwhile: nothing to measure
	}
	r.flights.ack(run.UID, written)
	if status.Phase.Completed() {
		r.finishes.forget(run.UID)
		r.flights.forget(req.NamespacedName, run.UID)
		log.FromContext(ctx).V(1).Info("analysis run completed", "phase", status.Phase, "message", status.Message)
		return r.expire(ctx, run, now)
	}
	r.launch(ctx, run, status, tasks)
	next, err := analysis.Wake(spec, view, func(m string) bool { return r.flights.busy(run.UID, m) }, now)
	if err != nil || next.IsZero() {
		return ctrl.Result{}, err
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
	rv := run.ResourceVersion
	run.Status = *status
	if err := r.Client.Patch(ctx, run, patch); err != nil {
		return err
	}
	r.writes.WroteObj(run, rv, r.Clock.Now())
	log.FromContext(ctx).V(1).Info("patched analysis run status", "phase", status.Phase, "resourceVersion", run.ResourceVersion)
	return nil
}

// writeStatus patches status. When the API server refuses it as too large,
// the run ends in Error with its measurement history trimmed
// (analysis.TooLarge), so that it is never left without a phase.
func (r *Reconciler) writeStatus(ctx context.Context, run *rampv1.AnalysisRun, status *rampv1.AnalysisRunStatus, now time.Time) error {
	orig := run.DeepCopy()
	err := r.patchStatus(ctx, run, status)
	if !tooLarge(err) {
		return err
	}
	log.FromContext(ctx).V(1).Info("status refused as too large; ending the run in Error", "error", err.Error())
	analysis.TooLarge(status, now)
	*run = *orig
	return r.patchStatus(ctx, run, status)
}

// tooLarge reports an API server refusing a write for its size: 413 (the
// request body is over its limit) or etcd's limit on a stored object,
// which kube-apiserver returns as a 500 whose message carries etcd's error.
func tooLarge(err error) bool {
	if err == nil {
		return false
	}
	if apierrors.IsRequestEntityTooLargeError(err) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "request is too large") || strings.Contains(msg, "trying to send message larger than max")
}

// gone turns the NotFound of a write to a run deleted since the read (its
// owner deleted it, a namespace torn down) into nothing to do, forgetting
// the run and its measurements.
func (r *Reconciler) gone(run *rampv1.AnalysisRun, err error) error {
	if apierrors.IsNotFound(err) {
		r.finishes.forget(run.UID)
		r.flights.forget(client.ObjectKeyFromObject(run), run.UID)
		r.writes.Forget(run.UID)
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
