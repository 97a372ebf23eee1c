package plan

import (
	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// basic is the replica math of step idx without trafficRouting: the weight
// in force (0 on abort, 100 on the stable version) and the observed
// ReplicaSets. setCanaryScale steps do not size a canary without
// trafficRouting (Argo Rollouts ignores them there too).
func (r *canaryRun) basic(idx int32) Basic {
	b := Basic{N: r.n, Surge: r.surge, Unavailable: r.unavailable, Weight: weightAt(r.steps, idx)}
	switch {
	case r.aborted():
		b.Weight = 0
	case r.stable():
		b.Weight = 100
	}
	if nw := r.in.New; nw != nil {
		b.Canary = toRS(*nw)
	} else {
		b.Canary.Name = r.in.NewHash
	}
	if st := r.in.Stable; st != nil {
		s := toRS(*st)
		b.Stable = &s
	}
	for _, o := range r.in.Others {
		b.Others = append(b.Others, toRS(o))
	}
	return b
}

func toRS(rs ReplicaSet) RS {
	return RS{Name: rs.Name, Spec: rs.Spec, Replicas: rs.Replicas, Available: rs.Available}
}

// scale computes the next safe ReplicaSet sizes toward the current step
// (Basic.Next, Basic.Older) and records them (and a creation of the new
// ReplicaSet) in the output.
func (r *canaryRun) scale() (canarySpec, stableSpec int32, othersSpec []int32) {
	b := r.basic(*r.s.CurrentStepIndex)
	cur, st := b.Canary, b.Stable
	if r.ro.Spec.Paused { // a paused Rollout keeps its ReplicaSets as they are
		if r.in.New == nil { // and creates the new one empty, as upstream
			r.out.CreateNew, r.out.NewReplicas = true, 0
		}
		othersSpec = make([]int32, len(b.Others))
		for i, o := range b.Others {
			othersSpec[i] = o.Spec
		}
		if st != nil {
			stableSpec = st.Spec
		}
		return cur.Spec, stableSpec, othersSpec
	}
	canarySpec, stableSpec = b.Next()
	othersSpec = b.Older()
	// Growth may only use room that is free now: pods being scaled down in
	// this same pass (or earlier, not yet carried out by the ReplicaSet
	// controller) still exist, so observed pods stay within n + surge.
	// Stable grows first, as in Basic.Next.
	room := max(r.n+r.surge-r.occupied(), 0)
	if st != nil {
		if grow := stableSpec - st.Spec; grow > 0 {
			stableSpec = st.Spec + min(grow, room)
			room -= min(grow, room)
		}
	}
	if grow := canarySpec - cur.Spec; grow > 0 {
		canarySpec = cur.Spec + min(grow, room)
	}

	if r.in.New == nil {
		r.out.CreateNew, r.out.NewReplicas = true, canarySpec
	} else {
		r.setScale(cur.Name, cur.Spec, canarySpec)
	}
	if st != nil {
		r.setScale(st.Name, st.Spec, stableSpec)
	}
	for i, o := range b.Others {
		r.setScale(o.Name, o.Spec, othersSpec[i])
	}
	return canarySpec, stableSpec, othersSpec
}

// complete promotes the new ReplicaSet to stable once every step is done and
// it alone serves all replicas.
func (r *canaryRun) complete(canarySpec, stableSpec int32, othersSpec []int32) {
	if r.stable() || r.aborted() || r.ro.Spec.Paused || int(*r.s.CurrentStepIndex) < len(r.steps) {
		return
	}
	nw := r.in.New
	if nw == nil || canarySpec != r.n || nw.Spec != r.n || nw.Available < r.n || stableSpec != 0 {
		return
	}
	for _, o := range othersSpec {
		if o != 0 {
			return
		}
	}
	r.s.StableRS, r.s.PromoteFull = r.in.NewHash, false
	r.out.event(rampv1.RolloutReasonCompleted, rampv1.RolloutMessageCompleted, nw.Revision, r.in.NewHash, rampv1.RolloutMessageHealthy)
}

// services says which pod-template hash each Service should select: the
// stable hash once stable pods are available, the canary hash once canary
// pods are (back to stable on abort).
func (r *canaryRun) services() {
	nw, st := r.in.New, r.in.Stable
	stableAvailable := st != nil && st.Available > 0
	newAvailable := nw != nil && nw.Available > 0
	if r.stable() {
		stableAvailable, st = newAvailable, nw
	}
	if stableAvailable {
		r.out.selectHash(r.c.StableService, r.s.StableRS)
	}
	switch {
	case r.aborted() && stableAvailable:
		r.out.selectHash(r.c.CanaryService, r.s.StableRS)
	case newAvailable:
		r.out.selectHash(r.c.CanaryService, r.in.NewHash)
	case stableAvailable:
		r.out.selectHash(r.c.CanaryService, r.s.StableRS)
	}
}
