// Package rollout reconciles Rollouts: it reads the Rollout and the objects it
// owns from the informer cache, asks internal/plan for the desired state and
// writes only the difference (ReplicaSets, Service selectors, pods to
// restart, one status patch, Events).
package rollout

import (
	"context"
	"fmt"
	"sync"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/metrics"
	"github.com/ramp-rollouts/ramp/internal/outcome"
	"github.com/ramp-rollouts/ramp/internal/plan"
	"github.com/ramp-rollouts/ramp/internal/registry"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// Reconciler reconciles Rollout objects.
type Reconciler struct {
	Client   client.Client
	Recorder events.EventRecorder
	Clock    clock.PassiveClock
	// Routers are the traffic routers by trafficRouting key.
	Routers *registry.Registry[traffic.Router]
	// Live reads from the API server, not the cache: only the pod readiness
	// a pass about to declare the progress deadline checks (nil: Client).
	Live client.Reader

	// routes remembers, by Rollout UID, the route the routers were last
	// asked to hold and whether it was read back (plan.Traffic). After a
	// restart it is empty, and the first pass reads every route back.
	routes sync.Map

	// deleted remembers pods this controller deleted for a restart until the
	// cache shows them terminating or gone, so a pass that runs before the
	// cache caught up never counts them as ready (and deletes one too many).
	deleted sync.Map // types.UID -> time.Time
	// expect holds our own writes the cache has not shown yet.
	expect expectations
	// held keeps, by Rollout UID, a status a pass decided and held back
	// (plan.Output.Hold), valid while the Rollout keeps the
	// resourceVersion it was decided from.
	held sync.Map // types.UID -> heldStatus
}

// heldStatus is a status decided and not yet written.
type heldStatus struct {
	rv     string // the Rollout's resourceVersion when it was decided
	status rampv1.RolloutStatus
	since  time.Time // when the hold began
}

// takeHeld puts the status held for ro, if ro has not changed since, in its
// place and returns the stored status and when the hold began; a held
// status of an older version of ro is dropped (the next pass decides again
// from what is stored).
func (r *Reconciler) takeHeld(ro *rampv1.Rollout) (stored rampv1.RolloutStatus, since time.Time) {
	stored = ro.Status
	v, ok := r.held.Load(ro.UID)
	if !ok {
		return stored, time.Time{}
	}
	h := v.(heldStatus)
	if h.rv != ro.ResourceVersion {
		r.held.Delete(ro.UID)
		return stored, time.Time{}
	}
	ro.Status = *h.status.DeepCopy()
	return stored, h.since
}

// RBAC: every write is a patch (never an update), the Rollout's /scale is
// the API server's to serve (HPAs, kubectl scale), and Experiments are
// garbage-collected through their owner reference, never deleted here.
//
// +kubebuilder:rbac:groups=argoproj.io,resources=rollouts,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=argoproj.io,resources=rollouts/status,verbs=patch
// +kubebuilder:rbac:groups=argoproj.io,resources=analysisruns,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=argoproj.io,resources=experiments,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups=argoproj.io,resources=analysistemplates;clusteranalysistemplates,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=replicasets,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;patch;delete
// +kubebuilder:rbac:groups=autoscaling,resources=horizontalpodautoscalers,verbs=get;list;watch
// +kubebuilder:rbac:groups="";events.k8s.io,resources=events,verbs=create;patch

// Reconcile reads the world, plans and writes the difference.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ro := &rampv1.Rollout{}
	if err := r.Client.Get(ctx, req.NamespacedName, ro); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if ro.DeletionTimestamp != nil {
		r.expect.forget(ro.UID)
		r.held.Delete(ro.UID)
		return ctrl.Result{}, r.release(ctx, ro)
	}
	if wrote, err := r.ensureFinalizer(ctx, ro); err != nil || wrote {
		return ctrl.Result{}, client.IgnoreNotFound(ignoreConflict(err)) // the update brings the next pass
	}
	now := r.Clock.Now()
	if r.expect.Stale(ro.UID, ro.ResourceVersion, now) {
		return ctrl.Result{RequeueAfter: expectationTTL}, nil // our status write is on its way to the cache; its watch event wakes us (the requeue is a safety net)
	}
	rv := ro.ResourceVersion
	stored, heldSince := r.takeHeld(ro)
	w, err := r.observe(ctx, ro)
	if err != nil {
		return ctrl.Result{}, err
	}
	if r.cacheBehind(ro, w, now) {
		return ctrl.Result{RequeueAfter: expectationTTL}, nil // a write of ours is on its way to the cache; its watch event wakes us
	}
	if w.collision {
		return ctrl.Result{}, client.IgnoreNotFound(r.bumpCollisionCount(ctx, ro)) // the status update triggers the next pass
	}
	strategy := plan.For(ro)
	in := w.input(ro, now)
	in.Traffic, in.HeldSince = r.heldRoute(ro), heldSince
	out := strategy(in)
	if plan.ProgressDeadlineFired(&ro.Status, &out.Status) { // judged on fresh readiness, not on a late pass's cache
		if in.Progressed, err = r.lastReady(ctx, ro, w); err != nil {
			return ctrl.Result{}, err
		}
		out = strategy(in)
	}
	metrics.Decided("rollout")
	if out.Route != nil && w.invalid == "" {
		if out, err = r.route(ctx, ro, strategy, in, out); err != nil {
			if w.invalid, err = routeError(err); err != nil {
				return ctrl.Result{}, err
			}
			in.Invalid = w.invalid
			out = strategy(in) // nothing is changed; the running version keeps serving
		}
	}
	if err := r.apply(ctx, ro, w, out); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.applyRuns(ctx, ro, w, &out); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.scaleWorkload(ctx, w, &out); err != nil {
		return ctrl.Result{}, err
	}
	// A write to the Rollout in this pass (its revision annotation) brought
	// back the stored status with the new resourceVersion; otherwise ro
	// holds the held status, and the stored one is put back.
	if ro.ResourceVersion == rv {
		ro.Status = stored
	}
	if out.Hold && apiequality.Semantic.DeepEqual(ro.Status, stored) { // nobody else wrote the status meanwhile
		return r.hold(ctx, ro, out, heldSince, now), nil
	}
	r.held.Delete(ro.UID)
	if err := r.patchStatus(ctx, ro, out.Status); err != nil {
		switch {
		case apierrors.IsConflict(err):
			return ctrl.Result{}, nil // the user (or plugin) changed it; that change queues the next pass
		case apierrors.IsNotFound(err): // deleted since the read (a namespace torn down): nothing to report to
			r.expect.forget(ro.UID)
			r.routes.Delete(ro.UID)
			r.held.Delete(ro.UID)
			log.FromContext(ctx).V(1).Info("rollout gone before its status write", "rollout", req)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("patch status of rollout %s: %w", req, err)
	}
	if d := out.PauseOvershoot; d != nil {
		metrics.PauseOvershoot(*d)
	}
	outcome.Record(r.Recorder, ro, out.Events)
	if len(out.Events) > 0 {
		log.FromContext(ctx).V(1).Info("reconciled rollout", "phase", out.Status.Phase, "step", out.Status.CurrentStepIndex, "events", len(out.Events))
	}
	return ctrl.Result{RequeueAfter: out.RequeueAfter}, nil
}

// hold keeps out.Status for the next pass instead of writing it
// (plan.Output.Hold) and records its Events now: the next pass plans from
// it, so it decides nothing twice and tells nothing twice.
func (r *Reconciler) hold(ctx context.Context, ro *rampv1.Rollout, out plan.Output, since, now time.Time) ctrl.Result {
	if since.IsZero() {
		since = now
	}
	r.held.Store(ro.UID, heldStatus{rv: ro.ResourceVersion, status: *out.Status.DeepCopy(), since: since})
	if d := out.PauseOvershoot; d != nil {
		metrics.PauseOvershoot(*d)
	}
	outcome.Record(r.Recorder, ro, out.Events)
	log.FromContext(ctx).V(1).Info("holding status while ReplicaSets move", "phase", out.Status.Phase, "step", out.Status.CurrentStepIndex,
		"since", since, "events", len(out.Events))
	return ctrl.Result{RequeueAfter: out.RequeueAfter}
}

func ignoreConflict(err error) error {
	if apierrors.IsConflict(err) {
		return nil
	}
	return err
}
