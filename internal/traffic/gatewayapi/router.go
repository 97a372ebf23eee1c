// Package gatewayapi is the Gateway API traffic router. It splits traffic
// between a Rollout's canary and stable Services by the backendRef weights
// of HTTPRoutes (gateway.networking.k8s.io/v1), and holds the managed header
// and mirror routes as rules named after them. It owns only those weights
// and the rules named in trafficRouting.managedRoutes; everything else in an
// HTTPRoute (parentRefs, hostnames, other rules and their filters, metadata)
// is left as it is. Its configuration is the Argo Rollouts Gateway API
// plugin's, under trafficRouting.plugins["argoproj-labs/gatewayAPI"].
//
// HTTPRoutes are handled as unstructured objects: this package must not
// import the Gateway API Go types.
package gatewayapi

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
	"github.com/ramp-rollouts/ramp/internal/traffic/objects"
)

// maxWeight is the largest backendRef weight an HTTPRoute accepts.
const maxWeight = 1000000

// Router keeps the HTTPRoutes of Rollouts.
type Router struct{ c client.Client }

var _ traffic.Router = (*Router)(nil)

// New returns a Router that reads through c (the manager's cached client)
// and writes with it.
func New(c client.Client) *Router { return &Router{c: c} }

// Check validates the plugin configuration, the Services, the managed route
// names (they become HTTPRoute rule names) and the match conditions of the
// setHeaderRoute and setMirrorRoute steps.
func (r *Router) Check(ro *rampv1.Rollout) error {
	tr := trafficRouting(ro)
	if tr == nil {
		return fmt.Errorf("%s: required", pluginField)
	}
	var errs []error
	if _, err := httpRoutes(ro); err != nil {
		errs = append(errs, err)
	}
	c := ro.Spec.Strategy.Canary
	switch {
	case c.CanaryService == "":
		errs = append(errs, errors.New("spec.strategy.canary.canaryService: required with trafficRouting"))
	case c.StableService == "":
		errs = append(errs, errors.New("spec.strategy.canary.stableService: required with trafficRouting"))
	case c.CanaryService == c.StableService:
		errs = append(errs, errors.New("spec.strategy.canary.stableService: must differ from canaryService"))
	}
	if tr.MaxTrafficWeight != nil && *tr.MaxTrafficWeight > maxWeight {
		errs = append(errs, fmt.Errorf("spec.strategy.canary.trafficRouting.maxTrafficWeight: at most %d with Gateway API (the largest backendRef weight)", maxWeight))
	}
	for i, m := range tr.ManagedRoutes {
		if msgs := validation.IsDNS1123Subdomain(m.Name); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("spec.strategy.canary.trafficRouting.managedRoutes[%d].name: %q is not a valid HTTPRoute rule name: %s", i, m.Name, msgs[0]))
		}
	}
	for i, s := range c.Steps {
		if s.SetHeaderRoute != nil {
			if _, err := headerMatches(s.SetHeaderRoute.Match); err != nil {
				errs = append(errs, fmt.Errorf("spec.strategy.canary.steps[%d].setHeaderRoute.%w", i, err))
			}
		}
		if s.SetMirrorRoute != nil {
			if _, err := mirrorMatches(s.SetMirrorRoute.Match); err != nil {
				errs = append(errs, fmt.Errorf("spec.strategy.canary.steps[%d].setMirrorRoute.%w", i, err))
			}
		}
	}
	return errors.Join(errs...)
}

// Refs are the configured HTTPRoutes (none when the configuration is
// invalid: Check reports that).
func (r *Router) Refs(ro *rampv1.Rollout) []traffic.Ref {
	routes, err := httpRoutes(ro)
	if err != nil {
		return nil
	}
	refs := make([]traffic.Ref, 0, len(routes))
	for _, h := range routes {
		refs = append(refs, h.ref())
	}
	return refs
}

// Sync makes every configured HTTPRoute carry want; it stops at the first
// HTTPRoute it cannot read or write. An invalid configuration, a missing
// HTTPRoute or one without a rule to both Services is a traffic.ConfigError.
func (r *Router) Sync(ctx context.Context, ro *rampv1.Rollout, want traffic.Route) (bool, error) {
	routes, err := httpRoutes(ro)
	if err != nil {
		return false, traffic.Misconfigured("%w", err)
	}
	inForce := true
	for _, h := range routes {
		t := newTarget(ro, want, h.headerRoutes)
		// No Event: upstream's Gateway API plugin records none.
		ok, err := objects.Sync(ctx, r.c, h.ref(), func(u *unstructured.Unstructured) error { return setRules(u, t) }, traffic.Write{})
		if err != nil {
			return false, err
		}
		inForce = inForce && ok
	}
	return inForce, nil
}
