// Package alb routes traffic with the AWS Load Balancer Controller. The
// Ingresses are the user's: each routes to the Rollout's root (or stable)
// Service with port name "use-annotation", and Ramp keeps the forward
// action annotation of that Service (weighted target groups of the canary
// and stable Services), the marker annotation naming the Rollout that
// manages it and, while a managed header route is in force, that route's
// action and conditions annotations and its rule path (header.go). Nothing
// else of an Ingress is touched. Objects are read and
// written as unstructured networking.k8s.io/v1 Ingresses through
// traffic/objects; what the annotations hold is decided by pure functions.
// It imports only api/v1alpha1, traffic and traffic/objects of Ramp
// (never the controller).
package alb

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
	"github.com/ramp-rollouts/ramp/internal/traffic/objects"
)

// Router keeps the action annotations of Rollouts routed with ALB.
type Router struct{ c client.Client }

var _ traffic.Router = (*Router)(nil)

// New returns a Router that reads through c (the manager's cached client)
// and writes with it.
func New(c client.Client) *Router { return &Router{c: c} }

// Refs are the Ingresses of ro, in the Rollout's namespace.
func (r *Router) Refs(ro *rampv1.Rollout) []traffic.Ref {
	_, a := config(ro)
	if a == nil {
		return nil
	}
	return traffic.RefsOf(objects.IngressGVK, ro.Namespace, ingresses(a))
}

// Sync makes every Ingress carry want: the forward action's weights and the
// managed header routes in force, with one write per Ingress that differs.
// Problems retrying cannot fix (the configuration, a missing Ingress or one
// without a use-annotation backend, an annotation another Rollout manages)
// are traffic.ConfigErrors.
func (r *Router) Sync(ctx context.Context, ro *rampv1.Rollout, want traffic.Route) (bool, error) {
	if err := r.Check(ro); err != nil {
		return false, traffic.Misconfigured("%w", err)
	}
	if err := checkRoute(want); err != nil {
		return false, traffic.Misconfigured("%w", err)
	}
	act := newAction(ro)
	inForce := true
	for _, ref := range r.Refs(ro) {
		cur, err := objects.Get(ctx, r.c, ref)
		if err != nil {
			return false, err
		}
		if err := act.check(cur); err != nil {
			return false, traffic.Misconfigured("%w", err)
		}
		next := cur.DeepCopy()
		ch, err := act.apply(next, want)
		if err != nil {
			return false, traffic.Misconfigured("Ingress %s/%s: %w", ref.Namespace, ref.Name, err)
		}
		ok, err := objects.Update(ctx, r.c, cur, func(u *unstructured.Unstructured) error {
			u.Object = next.Object
			return nil
		}, wrote(ref.Name, want, ch))
		if err != nil {
			return false, err
		}
		inForce = inForce && ok
	}
	return inForce, nil
}

// config returns ro's canary strategy and its ALB configuration (nil when
// either is not set).
func config(ro *rampv1.Rollout) (*rampv1.CanaryStrategy, *rampv1.ALBTrafficRouting) {
	if ro == nil || ro.Spec.Strategy.Canary == nil || ro.Spec.Strategy.Canary.TrafficRouting == nil {
		return nil, nil
	}
	cs := ro.Spec.Strategy.Canary
	return cs, cs.TrafficRouting.ALB
}

// ingresses are the Ingresses a configures: ingress, then ingresses, each
// once.
func ingresses(a *rampv1.ALBTrafficRouting) []string {
	var names []string
	seen := map[string]bool{}
	for _, n := range append([]string{a.Ingress}, a.Ingresses...) {
		if n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return names
}

// checkRoute reports a Route an ALB forward action cannot carry.
func checkRoute(want traffic.Route) error {
	switch {
	case want.Max <= 0 || want.Canary < 0 || want.Canary > want.Max:
		return fmt.Errorf("alb: canary weight %d of %d out of range", want.Canary, want.Max)
	case want.Max > maxWeight:
		return fmt.Errorf("alb: target group weights are at most %d, max traffic weight is %d", maxWeight, want.Max)
	case len(want.Mirrors) > 0:
		return fmt.Errorf("alb: cannot mirror traffic (setMirrorRoute %q)", want.Mirrors[0].Name)
	}
	for _, h := range want.Headers {
		if _, err := conditions(h); err != nil {
			return fmt.Errorf("alb: %w", err)
		}
	}
	return nil
}

// wrote is the Event of a write to Ingress name: upstream's messages for a
// weight, a header route and the removal of managed routes, joined when one
// write does more than one.
func wrote(name string, want traffic.Route, ch changes) traffic.Write {
	msg := fmt.Sprintf(rampv1.RolloutMessageIngressWeight, name, want.Canary)
	if ch.headers {
		var routes []string
		for _, h := range want.Headers {
			routes = append(routes, h.Name)
		}
		part := "removing managed routes"
		if len(routes) > 0 {
			part = fmt.Sprintf("to headerRoute '%s'", strings.Join(routes, "', '"))
		}
		if ch.weight {
			msg += " and " + part
		} else {
			msg = fmt.Sprintf("Updating Ingress `%s` %s", name, part)
		}
	}
	return traffic.Wrote(rampv1.RolloutReasonPatchingALBIngress, "%s", msg)
}
