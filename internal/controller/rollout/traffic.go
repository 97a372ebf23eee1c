package rollout

import (
	"context"
	"errors"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// TrafficFinalizer holds a traffic-routed Rollout's deletion until its
// routes send everything back to stable.
const TrafficFinalizer = "rollout.ramp.dev/traffic-routes"

// maxRoutePasses bounds how often one reconcile re-plans after reading a
// route back (each pass can only confirm what the previous one wanted).
const maxRoutePasses = 3

// routersOf returns the configured routers of ro (an unknown name is an
// error; plan.ValidateSupported reports it first).
func (r *Reconciler) routersOf(ro *rampv1.Rollout) ([]traffic.Router, error) {
	c := ro.Spec.Strategy.Canary
	if c == nil || c.TrafficRouting == nil || r.Routers == nil {
		return nil, nil
	}
	var out []traffic.Router
	for _, name := range traffic.Configured(c.TrafficRouting) {
		rt, err := r.Routers.Get(name)
		if err != nil {
			return nil, traffic.Misconfigured("%w", err)
		}
		out = append(out, rt)
	}
	return out, nil
}

// checkRouters reports the first router configuration problem of ro.
func (r *Reconciler) checkRouters(ro *rampv1.Rollout) string {
	routers, err := r.routersOf(ro)
	if err != nil {
		return "spec.strategy.canary.trafficRouting: " + err.Error()
	}
	for _, rt := range routers {
		if err := rt.Check(ro); err != nil {
			return err.Error()
		}
	}
	return ""
}

// syncRoute makes every router hold route; inForce when all already did.
// Each write a router reports becomes an Event with upstream's reason.
func (r *Reconciler) syncRoute(ctx context.Context, ro *rampv1.Rollout, route traffic.Route) (bool, error) {
	routers, err := r.routersOf(ro)
	if err != nil {
		return false, err
	}
	var writes []traffic.Write
	defer func() {
		for _, w := range writes {
			r.Recorder.Eventf(ro, nil, corev1.EventTypeNormal, w.Reason, w.Reason, "%s", w.Message)
		}
	}()
	ctx = traffic.WithWrites(ctx, &writes)
	inForce := true
	for _, rt := range routers {
		ok, err := rt.Sync(ctx, ro, route)
		if err != nil {
			return false, err
		}
		inForce = inForce && ok
	}
	return inForce, nil
}

// route syncs the planned route and re-plans while reading it back teaches
// the plan something new (a step's route in force lets the step finish in
// the same reconcile). It stops after a write: the route object's watch
// event brings the next pass once the cache shows it. Knowledge only grows
// within one reconcile, so the plan never steps back.
func (r *Reconciler) route(ctx context.Context, ro *rampv1.Rollout, strategy func(plan.Input) plan.Output, in plan.Input, out plan.Output) (plan.Output, error) {
	for range maxRoutePasses {
		if out.Route == nil {
			return out, nil
		}
		inForce, err := r.syncRoute(ctx, ro, *out.Route)
		if err != nil {
			return out, err
		}
		log.FromContext(ctx).V(1).Info("traffic route", "canary", out.Route.Canary, "headers", len(out.Route.Headers), "inForce", inForce)
		seen := plan.Traffic{Route: *out.Route, InForce: inForce}
		r.routes.Store(ro.UID, seen)
		if !inForce || (in.Traffic != nil && sameTraffic(*in.Traffic, seen)) {
			// After a write, the plan that asked for it is what gets applied
			// and recorded (its steps are done); re-planning with "not read
			// back yet" would forget them.
			return out, nil
		}
		in.Traffic = &seen
		out = strategy(in)
	}
	return out, nil
}

// heldRoute is what the routers were last read back holding for ro.
func (r *Reconciler) heldRoute(ro *rampv1.Rollout) *plan.Traffic {
	if v, ok := r.routes.Load(ro.UID); ok {
		t := v.(plan.Traffic)
		return &t
	}
	return nil
}

func sameTraffic(a, b plan.Traffic) bool { return reflect.DeepEqual(a, b) }

// ensureFinalizer adds TrafficFinalizer to a traffic-routed Rollout (and
// removes it when trafficRouting is gone). It reports whether it wrote.
func (r *Reconciler) ensureFinalizer(ctx context.Context, ro *rampv1.Rollout) (bool, error) {
	routed := ro.Spec.Strategy.Canary != nil && ro.Spec.Strategy.Canary.TrafficRouting != nil
	if routed == controllerutil.ContainsFinalizer(ro, TrafficFinalizer) {
		return false, nil
	}
	patch := client.MergeFromWithOptions(ro.DeepCopy(), client.MergeFromWithOptimisticLock{})
	if routed {
		controllerutil.AddFinalizer(ro, TrafficFinalizer)
	} else {
		controllerutil.RemoveFinalizer(ro, TrafficFinalizer)
	}
	return true, r.Client.Patch(ctx, ro, patch)
}

// release puts every route of a deleted Rollout back on stable
// (plan.ReleaseRoute), removes what the routers created, then lets the
// deletion finish. A route object that is gone (or misconfigured) has
// nothing left to restore.
func (r *Reconciler) release(ctx context.Context, ro *rampv1.Rollout) error {
	if !controllerutil.ContainsFinalizer(ro, TrafficFinalizer) {
		return nil
	}
	inForce, err := r.syncRoute(ctx, ro, plan.ReleaseRoute(ro))
	switch {
	case err != nil && !traffic.IsConfigError(err):
		return err
	case err == nil && !inForce:
		return nil // written; its watch event brings the read-back
	}
	routers, _ := r.routersOf(ro) // syncRoute above returned this error (a ConfigError): nothing to clean
	for _, rt := range routers {
		if c, ok := rt.(traffic.Cleaner); ok {
			if err := c.Cleanup(ctx, ro); err != nil && !traffic.IsConfigError(err) {
				return err
			}
		}
	}
	patch := client.MergeFromWithOptions(ro.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(ro, TrafficFinalizer)
	r.routes.Delete(ro.UID)
	return client.IgnoreNotFound(r.Client.Patch(ctx, ro, patch))
}

// routeError turns a router's configuration error into an InvalidSpec
// message naming the field; other errors are returned for a retry.
func routeError(err error) (string, error) {
	var ce *traffic.ConfigError
	if errors.As(err, &ce) {
		return "spec.strategy.canary.trafficRouting: " + ce.Error(), nil
	}
	return "", err
}
