package istio

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
	"github.com/ramp-rollouts/ramp/internal/traffic/objects"
)

// The kinds the router reads and writes. networking.istio.io/v1 is served,
// and is the storage version, since Istio 1.22.
var (
	VirtualServiceGVK  = schema.GroupVersionKind{Group: "networking.istio.io", Version: "v1", Kind: "VirtualService"}
	DestinationRuleGVK = schema.GroupVersionKind{Group: "networking.istio.io", Version: "v1", Kind: "DestinationRule"}
)

// Router is the Istio traffic router (trafficRouting.istio).
type Router struct{ c client.Client }

var _ traffic.Router = (*Router)(nil)

// New returns the router that reads and writes through c; with the
// manager's client, reads come from the informer cache.
func New(c client.Client) *Router { return &Router{c: c} }

// Refs are the DestinationRule (when set) and the VirtualServices, all in
// the Rollout's namespace.
func (r *Router) Refs(ro *rampv1.Rollout) []traffic.Ref {
	cfg := config(ro)
	if cfg == nil {
		return nil
	}
	var refs []traffic.Ref
	if dr := cfg.DestinationRule; dr != nil && dr.Name != "" {
		refs = append(refs, traffic.Ref{GVK: DestinationRuleGVK, Namespace: ro.Namespace, Name: dr.Name})
	}
	for _, vs := range virtualServices(cfg) {
		if vs.Name != "" {
			refs = append(refs, traffic.Ref{GVK: VirtualServiceGVK, Namespace: ro.Namespace, Name: vs.Name})
		}
	}
	return refs
}

// Sync points the DestinationRule's subsets at want's pod-template hashes
// first, then sets the weights and managed routes of every VirtualService.
// A written DestinationRule does not stop the VirtualServices from being
// written in the same call: the planner raises the canary weight only once
// the canary pods are available, so either order is safe.
func (r *Router) Sync(ctx context.Context, ro *rampv1.Rollout, want traffic.Route) (bool, error) {
	if err := r.Check(ro); err != nil {
		return false, err
	}
	cfg := config(ro)
	inForce := true
	if dr := cfg.DestinationRule; dr != nil {
		ref := traffic.Ref{GVK: DestinationRuleGVK, Namespace: ro.Namespace, Name: dr.Name}
		note := traffic.Wrote(rampv1.RolloutReasonUpdatedDestinationRule, rampv1.RolloutMessageDestinationRuleUpdated,
			dr.Name, dr.CanarySubsetName, want.CanaryHash, dr.StableSubsetName, want.StableHash)
		ok, err := objects.Sync(ctx, r.c, ref, subsetLabels(ro.Name, *dr, want), note)
		if err != nil {
			return false, err
		}
		inForce = inForce && ok
	}
	d, managed, placed := destsOf(ro), managedNames(ro), false
	for _, vs := range virtualServices(cfg) {
		p := &vsPatch{sel: vs, dests: d, managed: managed, want: want}
		ref := traffic.Ref{GVK: VirtualServiceGVK, Namespace: ro.Namespace, Name: vs.Name}
		note := traffic.Wrote(rampv1.RolloutReasonUpdatedVirtualService, rampv1.RolloutMessageVirtualServiceWeight, vs.Name, want.Canary)
		ok, err := objects.Sync(ctx, r.c, ref, p.apply, note)
		if err != nil {
			return false, err
		}
		inForce = inForce && ok
		placed = placed || p.placed
	}
	if !placed && wantsManaged(want) {
		return false, errors.New("istio: header and mirror routes need a VirtualService with a weighted http route (spec.strategy.canary.trafficRouting.istio routes)")
	}
	return inForce, nil
}

// config is the Rollout's trafficRouting.istio, nil when unset.
func config(ro *rampv1.Rollout) *rampv1.IstioTrafficRouting {
	c := ro.Spec.Strategy.Canary
	if c == nil || c.TrafficRouting == nil {
		return nil
	}
	return c.TrafficRouting.Istio
}

// virtualServices lists the configured VirtualServices (virtualService or
// virtualServices; Check rejects both).
func virtualServices(cfg *rampv1.IstioTrafficRouting) []rampv1.IstioVirtualService {
	var out []rampv1.IstioVirtualService
	if cfg.VirtualService != nil {
		out = append(out, *cfg.VirtualService)
	}
	return append(out, cfg.VirtualServices...)
}

// managedNames are the names in trafficRouting.managedRoutes.
func managedNames(ro *rampv1.Rollout) map[string]bool {
	names := map[string]bool{}
	if c := ro.Spec.Strategy.Canary; c != nil && c.TrafficRouting != nil {
		for _, m := range c.TrafficRouting.ManagedRoutes {
			names[m.Name] = true
		}
	}
	return names
}
