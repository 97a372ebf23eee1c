// Package traffic defines how Ramp shifts traffic between the stable and the
// canary version and keeps the registry of routers (gatewayapi, istio, nginx,
// alb, smi), one sub-package each. A router's name is the key it is
// configured under in spec.strategy.canary.trafficRouting; an unknown name is
// an error, never a silent default.
package traffic

import (
	"context"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/registry"
)

// Router sets and reads back the canary's share of traffic.
type Router interface {
	// SetWeight sends weight percent (0..100) of traffic to the canary.
	SetWeight(ctx context.Context, ro *rampv1.Rollout, weight int32) error
	// Weight reads back the canary weight currently in force.
	Weight(ctx context.Context, ro *rampv1.Rollout) (int32, error)
}

// HeaderRouter is an optional capability: routes matching headers to the canary.
type HeaderRouter interface {
	SetHeaderRoute(ctx context.Context, ro *rampv1.Rollout, route *rampv1.SetHeaderRoute) error
}

// Mirrorer is an optional capability: mirrors matching traffic to the canary.
type Mirrorer interface {
	SetMirrorRoute(ctx context.Context, ro *rampv1.Rollout, route *rampv1.SetMirrorRoute) error
}

// NewRegistry returns an empty router registry.
func NewRegistry() *registry.Registry[Router] { return registry.New[Router]("traffic router") }
