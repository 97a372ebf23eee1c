package plan

// counts fills the replica counts (from the observed ReplicaSets) and the
// /scale fields. status.canary.weights describes routers: a routed canary
// records its route there (routedWeights); upstream leaves it out without
// them.
func (r *canaryRun) counts() {
	r.base.counts()
	r.s.HPAReplicas = r.s.Replicas
	if !r.routed() {
		r.s.Canary.Weights = nil
	}
}

func (r *canaryRun) healthy() bool {
	nw := r.in.New
	if !r.stable() || nw == nil || nw.Available < r.n || nw.Replicas != r.n || r.in.Stable != nil {
		return false
	}
	for _, o := range r.in.Others {
		if o.Replicas != 0 {
			return false
		}
	}
	return true
}
