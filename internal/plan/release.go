package plan

import (
	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// ReleaseRoute is the route a deleted traffic-routed Rollout's routers
// must hold before its finalizer goes: everything on the stable
// ReplicaSet (status.stableRS on both sides, canary weight 0), in units of
// maxTrafficWeight, with no header or mirror route.
func ReleaseRoute(ro *rampv1.Rollout) traffic.Route {
	stable := ro.Status.StableRS
	return traffic.Route{Max: ro.Spec.Strategy.Canary.MaxTrafficWeight(), StableHash: stable, CanaryHash: stable}
}
