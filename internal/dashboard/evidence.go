package dashboard

import (
	"context"
	"sync"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/gather"
	"github.com/ramp-rollouts/ramp/internal/plan"
	"github.com/ramp-rollouts/ramp/internal/view"
)

// addEvidence adds what the rollout page decides on beyond the objects:
// the planner's forecast of the rest of the update and what each action
// would do (both from one simulation, plan.Simulate as `ramp plan` runs
// it, with an HPA when one scales the rollout), the traffic routing and the
// HPAs. Every decision is in internal/plan and internal/view.
func (s *Server) addEvidence(d *RolloutDetail, o *gather.Objects, hpas []autoscalingv2.HorizontalPodAutoscaler) {
	ro := o.Rollout
	tr, err := s.sims.simulate(ro, len(hpas) > 0)
	d.Forecast = view.ForecastOf(ro, tr, err)
	d.Confirm = view.ConfirmationsOf(ro, o.ReplicaSets, tr, err)
	d.Traffic = view.TrafficOf(ro)
	for i := range hpas {
		d.HPAs = append(d.HPAs, view.HPAOf(&hpas[i]))
	}
}

// simulations remembers the planner's simulation of each Rollout's current
// spec: it depends on the spec alone (plan.Simulate starts from an empty
// status) and on whether an HPA scales it, and every open page reloads the
// detail on every change of the rollout, mostly of its status. One per
// Rollout: a new generation replaces the previous one's.
type simulations struct {
	mu sync.Mutex
	m  map[simKey]simulated
}

// simKey is a Rollout, with or without an HPA.
type simKey struct {
	uid types.UID
	hpa bool
}

// simulated is the simulation of the spec of one generation.
type simulated struct {
	generation int64
	tr         plan.Trajectory
	err        error
}

// simsKept bounds the memory: past it, the next simulation starts afresh.
const simsKept = 1024

func (c *simulations) simulate(ro *rampv1.Rollout, hpa bool) (plan.Trajectory, error) {
	k := simKey{ro.UID, hpa}
	if ro.Generation == 0 || ro.UID == "" { // not versioned by an API server: no key
		return plan.Simulate(ro, plan.SimOptions{HPA: hpa})
	}
	c.mu.Lock()
	r, ok := c.m[k]
	c.mu.Unlock()
	if ok && r.generation == ro.Generation {
		return r.tr, r.err
	}
	tr, err := plan.Simulate(ro, plan.SimOptions{HPA: hpa})
	c.mu.Lock()
	if _, known := c.m[k]; c.m == nil || (!known && len(c.m) >= simsKept) {
		c.m = map[simKey]simulated{}
	}
	c.m[k] = simulated{ro.Generation, tr, err}
	c.mu.Unlock()
	return tr, err
}

// rolloutHPAs are the HPAs in ro's namespace that scale it.
func rolloutHPAs(ctx context.Context, c client.Reader, ro *rampv1.Rollout) ([]autoscalingv2.HorizontalPodAutoscaler, error) {
	var l autoscalingv2.HorizontalPodAutoscalerList
	if err := c.List(ctx, &l, client.InNamespace(ro.Namespace)); err != nil {
		return nil, err
	}
	var out []autoscalingv2.HorizontalPodAutoscaler
	for i := range l.Items {
		if view.TargetsRollout(&l.Items[i], ro.Name) {
			out = append(out, l.Items[i])
		}
	}
	return out, nil
}
