// Package nginx routes traffic with the NGINX Ingress Controller. For each
// stable Ingress of a Rollout it keeps a canary Ingress: a copy of the
// stable one whose backends point at the canary Service, carrying the
// canary annotations (weight and, for a header route, the header match).
// The canary Ingresses are Ramp's own, controlled by the Rollout; the stable
// Ingresses are only read. Objects are read and written as unstructured
// networking.k8s.io/v1 Ingresses through traffic/objects; everything that
// decides their content is a pure function of this package.
// It imports only api/v1alpha1, traffic and traffic/objects of Ramp
// (never the controller).
package nginx

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
	"github.com/ramp-rollouts/ramp/internal/traffic/objects"
)

// field is the configuration's path in a Rollout, for error messages.
const field = "spec.strategy.canary.trafficRouting.nginx"

// Router keeps the canary Ingresses of Rollouts routed with NGINX.
type Router struct{ c client.Client }

var (
	_ traffic.Router  = (*Router)(nil)
	_ traffic.Cleaner = (*Router)(nil)
)

// New returns a Router that reads through c (the manager's cached client)
// and writes with it.
func New(c client.Client) *Router { return &Router{c: c} }

// Refs are the stable Ingresses of ro, in the Rollout's namespace.
func (r *Router) Refs(ro *rampv1.Rollout) []traffic.Ref {
	_, n := config(ro)
	if n == nil {
		return nil
	}
	return traffic.RefsOf(objects.IngressGVK, ro.Namespace, stableIngresses(n))
}

// Sync makes the canary Ingress of every stable Ingress carry want. A canary
// Ingress it has to create is not in force yet. Problems retrying cannot fix
// (the configuration, a stable Ingress that is missing or routes nothing to
// the stable Service, a canary Ingress name taken by another object) are
// traffic.ConfigErrors.
func (r *Router) Sync(ctx context.Context, ro *rampv1.Rollout, want traffic.Route) (bool, error) {
	if err := r.Check(ro); err != nil {
		return false, traffic.Misconfigured("%w", err)
	}
	if err := checkRoute(want); err != nil {
		return false, traffic.Misconfigured("%w", err)
	}
	inForce := true
	for _, ref := range r.Refs(ro) {
		ok, err := r.syncOne(ctx, ro, ref, want)
		if err != nil {
			return false, err
		}
		inForce = inForce && ok
	}
	return inForce, nil
}

func (r *Router) syncOne(ctx context.Context, ro *rampv1.Rollout, ref traffic.Ref, want traffic.Route) (bool, error) {
	stable, err := objects.Get(ctx, r.c, ref)
	if err != nil {
		return false, err
	}
	desired, err := canaryIngress(ro, stable, want)
	if err != nil {
		return false, traffic.Misconfigured("%w", err)
	}
	cur, created, err := r.ensure(ctx, ro, desired, want.Canary)
	switch {
	case apierrors.IsAlreadyExists(err):
		return false, nil // created before the cache showed it; its watch event brings the next pass
	case err != nil || created:
		return false, err
	case cur == nil:
		return true, nil // ro is being deleted and has no canary to put back on stable
	}
	if !controlledBy(cur, ro) {
		return false, traffic.Misconfigured("Ingress %s/%s exists and is not controlled by Rollout %s", cur.GetNamespace(), cur.GetName(), ro.Name)
	}
	_, n := config(ro)
	note := traffic.Wrote(rampv1.RolloutReasonPatchingCanaryIngress, rampv1.RolloutMessageIngressWeight, cur.GetName(), want.Canary)
	return objects.Update(ctx, r.c, cur, func(u *unstructured.Unstructured) error {
		apply(u, desired, func(key string) bool { return owned(n, key) })
		return nil
	}, note)
}

// ensure returns the canary Ingress named like desired, creating it from
// desired if missing; while ro is being deleted a missing one is not
// created (cur is nil).
func (r *Router) ensure(ctx context.Context, ro *rampv1.Rollout, desired *unstructured.Unstructured, weight int32) (cur *unstructured.Unstructured, created bool, err error) {
	if ro.DeletionTimestamp == nil {
		note := traffic.Wrote(rampv1.RolloutReasonCreatingCanaryIngress, rampv1.RolloutMessageCanaryIngressCreated, desired.GetName(), weight)
		return objects.Ensure(ctx, r.c, desired.DeepCopy(), note)
	}
	cur = &unstructured.Unstructured{}
	cur.SetGroupVersionKind(objects.IngressGVK)
	switch err := r.c.Get(ctx, client.ObjectKeyFromObject(desired), cur); {
	case apierrors.IsNotFound(err):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("read Ingress %s/%s: %w", desired.GetNamespace(), desired.GetName(), err)
	}
	return cur, false, nil
}

// config returns ro's canary strategy and its nginx configuration (nil when
// either is not set).
func config(ro *rampv1.Rollout) (*rampv1.CanaryStrategy, *rampv1.NginxTrafficRouting) {
	if ro == nil || ro.Spec.Strategy.Canary == nil || ro.Spec.Strategy.Canary.TrafficRouting == nil {
		return nil, nil
	}
	cs := ro.Spec.Strategy.Canary
	return cs, cs.TrafficRouting.Nginx
}

// stableIngresses are the names of the stable Ingresses n configures.
func stableIngresses(n *rampv1.NginxTrafficRouting) []string {
	if n.StableIngress != "" {
		return append([]string{n.StableIngress}, n.StableIngresses...)
	}
	return n.StableIngresses
}
