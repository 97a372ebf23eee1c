// Package traffic defines how Ramp shifts traffic between the stable and the
// canary version: the Route a Rollout wants, the Router interface the
// routers implement (gatewayapi, istio, nginx, alb, smi; one sub-package
// each) and the registry of their Definitions, which each router package
// fills from its init (Register) and internal/builtin links. A router's
// name is the key it is configured under in
// spec.strategy.canary.trafficRouting (Gateway API under
// plugins["argoproj-labs/gatewayAPI"]); an unknown name is an error, never a
// silent default.
//
// The planner imports this package, so it stays pure: no API calls, and it
// must not import a client, controller-runtime or net/http
// (internal/imports_test.go), not even to type a router's constructor.
package traffic

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/registry"
)

// Route is the traffic state a Rollout wants its routers to hold.
type Route struct {
	// Canary is the canary Service's share in units of Max; the stable
	// Service gets Max-Canary.
	Canary int32
	// Max is trafficRouting.maxTrafficWeight (100 by default).
	Max int32
	// Headers are the managed header routes in force, in the precedence
	// order of trafficRouting.managedRoutes. Each sends matching requests
	// to the canary Service.
	Headers []rampv1.SetHeaderRoute
	// Mirrors are the managed mirror routes in force, in precedence order.
	Mirrors []rampv1.SetMirrorRoute
	// StableHash and CanaryHash are the pod-template hashes behind the
	// stable and canary Services (for subset-level routing: Istio
	// DestinationRule subsets).
	StableHash, CanaryHash string
}

// Stable is the stable Service's share in units of Max.
func (r Route) Stable() int32 { return r.Max - r.Canary }

// Ref names an object a router reads and writes.
type Ref struct {
	GVK       schema.GroupVersionKind
	Namespace string
	Name      string
}

// Router makes a router's objects carry a Route.
type Router interface {
	// Check validates the router's configuration in ro without any API
	// call; its error names the field.
	Check(ro *rampv1.Rollout) error
	// Refs are the existing objects the router reads and patches for ro
	// (watched, so a change to them reconciles the Rollout again).
	Refs(ro *rampv1.Rollout) []Ref
	// Sync reads the router's objects from the informer cache and, where
	// they differ from want, writes only the fields the router owns. It
	// reports inForce when every object already carried want: that is the
	// read-back the controller waits for before it moves on.
	Sync(ctx context.Context, ro *rampv1.Rollout, want Route) (inForce bool, err error)
}

// Cleaner is an optional capability: removes what a router created for ro
// (after Sync has put every request back on stable) when ro is deleted.
type Cleaner interface {
	Cleanup(ctx context.Context, ro *rampv1.Rollout) error
}

// NewRegistry returns an empty router registry.
func NewRegistry() *registry.Registry[Router] { return registry.New[Router]("traffic router") }

// RefsOf names objects of one kind in one namespace.
func RefsOf(gvk schema.GroupVersionKind, ns string, names []string) []Ref {
	refs := make([]Ref, 0, len(names))
	for _, name := range names {
		refs = append(refs, Ref{GVK: gvk, Namespace: ns, Name: name})
	}
	return refs
}
