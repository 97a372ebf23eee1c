package plan

import (
	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// counts fills the replica counts (from the observed ReplicaSets), the
// /scale fields and the traffic weights.
func (r *canaryRun) counts() {
	r.base.counts()
	s := &r.s
	s.HPAReplicas = s.Replicas
	if r.s.CurrentStepIndex == nil || r.c == nil {
		return
	}
	if !r.routed() { // status.canary.weights describes routers: upstream leaves it out without them
		s.Canary.Weights = nil
		return
	}
	w := int32(0)
	if !r.stable && !r.aborted {
		w = weightAt(r.steps, *s.CurrentStepIndex)
	}
	if s.Canary.Weights == nil {
		s.Canary.Weights = &rampv1.TrafficWeights{}
	}
	s.Canary.Weights.Canary = rampv1.WeightDestination{Weight: w, ServiceName: r.c.CanaryService, PodTemplateHash: r.in.NewHash}
	s.Canary.Weights.Stable = rampv1.WeightDestination{Weight: 100 - w, ServiceName: r.c.StableService, PodTemplateHash: s.StableRS}
}

func (r *canaryRun) healthy() bool {
	nw := r.in.New
	if !r.stable || nw == nil || nw.Available < r.n || nw.Replicas != r.n || r.in.Stable != nil {
		return false
	}
	for _, o := range r.in.Others {
		if o.Replicas != 0 {
			return false
		}
	}
	return true
}
