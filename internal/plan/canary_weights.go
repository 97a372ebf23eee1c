package plan

import (
	"fmt"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// routedWeights records route in status.canary.weights, verified when the
// routers were read back holding it, and tells a change in an Event.
func (r *canaryRun) routedWeights(route traffic.Route) {
	held, ok := r.held()
	canaryHash := route.CanaryHash
	if r.aborted() && r.in.New != nil {
		canaryHash = r.in.NewHash // upstream: the aborted update's hash, whatever the canary Service selects
	}
	w := trafficWeights(r.c, route, ok && sameRoute(held, route), canaryHash)
	r.s.Canary.Weights = w
	if msg := weightsChange(r.ro.Status.Canary.Weights, w); msg != "" {
		r.out.event(reasonTrafficWeightUpdated, "%s", msg)
	}
}

// trafficWeights is status.canary.weights for route rt, with the canary
// destination named by canaryHash.
func trafficWeights(c *rampv1.CanaryStrategy, rt traffic.Route, verified bool, canaryHash string) *rampv1.TrafficWeights {
	return &rampv1.TrafficWeights{
		Canary:   rampv1.WeightDestination{Weight: rt.Canary, ServiceName: c.CanaryService, PodTemplateHash: canaryHash},
		Stable:   rampv1.WeightDestination{Weight: rt.Stable(), ServiceName: c.StableService, PodTemplateHash: rt.StableHash},
		Verified: &verified,
	}
}

// weightsChange is upstream's TrafficWeightUpdated message when the
// recorded destinations change from prev to cur ("" when they do not).
func weightsChange(prev, cur *rampv1.TrafficWeights) string {
	switch {
	case prev == nil:
		return fmt.Sprintf("Traffic weight updated to %d", cur.Canary.Weight)
	case prev.Canary.Weight != cur.Canary.Weight:
		return fmt.Sprintf("Traffic weight updated from %d to %d", prev.Canary.Weight, cur.Canary.Weight)
	case prev.Canary != cur.Canary || prev.Stable != cur.Stable:
		return "Traffic weight updated "
	}
	return ""
}

// reasonTrafficWeightUpdated is upstream's Event reason for a route change.
const reasonTrafficWeightUpdated = rampv1.RolloutReasonTrafficWeightUpdated
