package plan

import (
	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// scale computes the next safe ReplicaSet sizes toward the current target
// and records them (and a creation of the new ReplicaSet) in the output.
func (r *canaryRun) scale(surge, unavailable int32) (canarySpec, stableSpec int32, othersSpec []int32) {
	nw := r.in.New
	cur := RS{Name: r.in.NewHash}
	if nw != nil {
		cur = RS{Name: nw.Name, Spec: nw.Spec, Available: nw.Available}
	}
	var st *RS
	if r.in.Stable != nil {
		st = &RS{Name: r.in.Stable.Name, Spec: r.in.Stable.Spec, Available: r.in.Stable.Available}
	}
	others := make([]RS, len(r.in.Others))
	for i, o := range r.in.Others {
		others[i] = RS{Name: o.Name, Spec: o.Spec, Available: o.Available}
	}
	if r.ro.Spec.Paused { // a paused Rollout keeps its ReplicaSets as they are
		othersSpec = make([]int32, len(others))
		for i, o := range others {
			othersSpec[i] = o.Spec
		}
		stableSpec = 0
		if st != nil {
			stableSpec = st.Spec
		}
		return cur.Spec, stableSpec, othersSpec
	}
	target := r.canaryTarget(*r.s.CurrentStepIndex)
	canarySpec, stableSpec, othersSpec = Step(r.n, surge, unavailable, target, cur, st, others)
	// Growth may only use room that is free now: pods being scaled down in
	// this same pass (or earlier, not yet carried out by the ReplicaSet
	// controller) still exist, so observed pods stay within n + surge.
	room := max(r.n+surge-r.occupied(), 0)
	if grow := canarySpec - cur.Spec; grow > 0 {
		canarySpec = cur.Spec + min(grow, room)
		room -= min(grow, room)
	}
	if st != nil {
		if grow := stableSpec - st.Spec; grow > 0 {
			stableSpec = st.Spec + min(grow, room)
		}
	}

	if nw == nil {
		r.out.CreateNew, r.out.NewReplicas = true, canarySpec
	} else {
		r.setScale(nw.Name, nw.Spec, canarySpec)
	}
	if st != nil {
		r.setScale(st.Name, st.Spec, stableSpec)
	}
	for i, o := range others {
		r.setScale(o.Name, o.Spec, othersSpec[i])
	}
	return canarySpec, stableSpec, othersSpec
}

// complete promotes the new ReplicaSet to stable once every step is done and
// it alone serves all replicas.
func (r *canaryRun) complete(canarySpec, stableSpec int32, othersSpec []int32) {
	if r.stable || r.aborted || r.ro.Spec.Paused || int(*r.s.CurrentStepIndex) < len(r.steps) {
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
	r.stable = true
	r.out.event(rampv1.RolloutReasonCompleted, rampv1.RolloutMessageCompleted, nw.Revision, r.in.NewHash, "Rollout is healthy")
}

// services says which pod-template hash each Service should select: the
// stable hash once stable pods are available, the canary hash once canary
// pods are (back to stable on abort).
func (r *canaryRun) services() {
	nw, st := r.in.New, r.in.Stable
	stableAvailable := st != nil && st.Available > 0
	newAvailable := nw != nil && nw.Available > 0
	if r.stable {
		stableAvailable, st = newAvailable, nw
	}
	if stableAvailable {
		r.out.selectHash(r.c.StableService, r.s.StableRS)
	}
	switch {
	case r.aborted && stableAvailable:
		r.out.selectHash(r.c.CanaryService, r.s.StableRS)
	case newAvailable:
		r.out.selectHash(r.c.CanaryService, r.in.NewHash)
	case stableAvailable:
		r.out.selectHash(r.c.CanaryService, r.s.StableRS)
	}
}

// restart replaces pods created before spec.restartAt, at most as many at a
// time as maxUnavailable allows (at least one), then records restartedAt.
func (r *canaryRun) restart(unavailable int32) {
	ra := r.ro.Spec.RestartAt
	if ra == nil || (r.s.RestartedAt != nil && !r.s.RestartedAt.Before(ra)) {
		return
	}
	if r.in.Now.Before(ra.Time) {
		r.out.requeue(ra.Sub(r.in.Now))
		return
	}
	if r.aborted || r.ro.Spec.Paused {
		return
	}
	if r.in.PodsToRestart == 0 {
		r.s.RestartedAt = ra.DeepCopy()
		r.out.event("RolloutRestarted", "Rollout restarted: every pod was created after %s", ra.UTC().Format("2006-01-02T15:04:05Z"))
		return
	}
	budget := max(unavailable, 1) - max(r.n-r.in.PodsAvailable, 0)
	if budget > 0 {
		r.out.DeletePods = min(budget, r.in.PodsToRestart)
	}
}
