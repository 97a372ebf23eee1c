package plan

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// routedAtStep reports whether step idx of a traffic-routed canary is done:
// the canary ReplicaSet has the step's pods available and the routers were
// read back holding the step's route.
func (r *canaryRun) routedAtStep(idx int32) bool {
	w, c := r.routedTarget(idx)
	nw, st := r.in.New, r.in.Stable
	if nw == nil || nw.Unobserved || nw.Spec != c || nw.Available < c {
		return false
	}
	if st != nil && r.dynamic() && st.Spec > max(r.stableTarget(w, c), r.floorFor(st)) {
		return false // stable can still shrink
	}
	rt, ok := r.held()
	return ok && sameRoute(rt, r.stepRoute(w, idx))
}

// stepRoute is the route of step idx at canary weight w.
func (r *canaryRun) stepRoute(w, idx int32) traffic.Route {
	rt := traffic.Route{Canary: w, Max: r.maxWeight(), StableHash: r.s.StableRS, CanaryHash: r.canarySelect()}
	if !r.aborted() {
		rt.Headers, rt.Mirrors = r.managedAt(idx)
	}
	return rt
}

// handover: every step is done and the full-size canary is available, so
// the stable Service moves to it and every route weight goes to stable.
func (r *canaryRun) handover() bool {
	nw := r.in.New
	return !r.aborted() && !r.stable() && !r.ro.Spec.Paused && int(*r.s.CurrentStepIndex) >= len(r.steps) &&
		nw != nil && !nw.Unobserved && nw.Spec == r.n && nw.Available >= r.n
}

func (r *canaryRun) handoverRoute() traffic.Route {
	return traffic.Route{Canary: 0, Max: r.maxWeight(), StableHash: r.in.NewHash, CanaryHash: r.in.NewHash}
}

// stableServiceOn reports whether the stable Service is read back selecting
// hash. Without a stable Service (Istio subset routing) the DestinationRule's
// subsets carry the hashes, which the route read-back checks instead.
func (r *canaryRun) stableServiceOn(hash string) bool {
	return r.c.StableService == "" || r.in.ServiceHash[r.c.StableService] == hash
}

// routedComplete makes the new ReplicaSet stable once the hand-over is read
// back: the routes hold it and both Services select it. Only then may the
// previous ReplicaSet start its scale-down delay.
func (r *canaryRun) routedComplete() {
	if !r.handover() {
		return
	}
	rt, ok := r.held()
	if !ok || !sameRoute(rt, r.handoverRoute()) {
		return
	}
	for _, svc := range []string{r.c.StableService, r.c.CanaryService} {
		if svc != "" && r.in.ServiceHash[svc] != r.in.NewHash {
			return
		}
	}
	r.s.StableRS, r.s.PromoteFull = r.in.NewHash, false
	r.out.event(rampv1.RolloutReasonCompleted, rampv1.RolloutMessageCompleted, r.in.New.Revision, r.in.NewHash, rampv1.RolloutMessageHealthy)
}

// canarySelect is the hash the canary Service should select: the canary's
// once it has available pods, back to stable after an abort only once the
// routes send the canary nothing.
func (r *canaryRun) canarySelect() string {
	nw := r.in.New
	switch {
	case r.stable() || r.handover():
		return r.in.NewHash
	case serving(nw) == 0, nw.Unobserved && r.in.ServiceHash[r.c.CanaryService] != r.in.NewHash:
		return r.s.StableRS // counts older than the spec never move the Service to the canary
	case r.aborted():
		if rt, ok := r.held(); ok && rt.Canary == 0 {
			return r.s.StableRS
		}
	}
	return r.in.NewHash
}

// routedServices points the Services: stable at the stable hash (the new one
// from the hand-over on), canary as canarySelect says.
func (r *canaryRun) routedServices() {
	stableHash := r.s.StableRS
	if r.handover() {
		stableHash = r.in.NewHash
	}
	if serving(r.byHash(stableHash)) > 0 {
		r.out.selectHash(r.c.StableService, stableHash)
	}
	if h := r.canarySelect(); h != "" {
		if serving(r.byHash(h)) > 0 {
			r.out.selectHash(r.c.CanaryService, h)
		}
	}
}

// routedScale picks the route and sizes the ReplicaSets of a traffic-routed
// canary: growth first (within replicas+1 with dynamicStableScale), and a
// shrink only down to what the traffic read back in force still needs.
func (r *canaryRun) routedScale() {
	w, c := r.routedTarget(*r.s.CurrentStepIndex)
	route := r.stepRoute(r.routeWeight(w, c), *r.s.CurrentStepIndex)
	if r.stable() || (r.handover() && r.stableServiceOn(r.in.NewHash)) {
		route = r.handoverRoute() // only once the stable Service is read back selecting the new pods
	}
	if rt, ok := r.held(); ok && r.ro.Spec.Paused {
		route = rt
	}
	r.out.Route = &route
	if r.ro.Spec.Paused {
		return
	}
	dynamic := r.dynamic()
	// Room to grow: replicas+1, or what the step needs on both sides
	// (minPodsPerReplicaSet, setCanaryScale).
	room := max(max(r.n+1, c+r.stableTarget(w, c))-r.occupied(), 0)
	grow := func(from, to int32) int32 {
		if dynamic && to > from {
			to = from + min(to-from, room)
			room -= to - from
		}
		return to
	}
	nw, st := r.in.New, r.in.Stable
	switch {
	case nw == nil && !r.aborted():
		r.out.CreateNew, r.out.NewReplicas = true, grow(0, c)
	case nw != nil:
		want := c
		switch {
		case want > nw.Spec:
			want = grow(nw.Spec, want)
		case want < nw.Spec && r.aborted() && !dynamic:
			want = nw.Spec // all of it until no traffic reaches it, then after the abort delay
			if r.floorFor(nw) == 0 {
				want = r.delayedZero(nw, r.ro.AbortScaleDownDelaySeconds())
			}
		case want < nw.Spec:
			want = max(want, r.floorFor(nw))
		}
		r.setScale(nw.Name, nw.Spec, want)
		if !r.aborted() && nw.ScaleDownAt != nil {
			r.clearDeadline(nw.Name) // retried
		}
	}
	if st != nil && !r.stable() {
		want := r.stableTarget(w, c)
		switch {
		case want > st.Spec:
			want = grow(st.Spec, want)
		case want < st.Spec:
			want = max(want, r.floorFor(st))
		}
		r.setScale(st.Name, st.Spec, want)
		if st.ScaleDownAt != nil {
			r.clearDeadline(st.Name)
		}
	}
	old := r.in.Others
	if r.stable() && st != nil {
		old = append(derefRS(st), old...) // the previous stable, this pass
	}
	for i := range old {
		r.setScale(old[i].Name, old[i].Spec, r.oldSize(&old[i]))
	}
}

// oldSize scales a ReplicaSet of an older revision to 0 once no traffic
// reaches it and its scale-down delay (scaleDownDelaySeconds) has passed.
func (r *canaryRun) oldSize(rs *ReplicaSet) int32 {
	if rs.Spec == 0 {
		if rs.ScaleDownAt != nil {
			r.clearDeadline(rs.Name)
		}
		return 0
	}
	if r.floorFor(rs) > 0 {
		return rs.Spec
	}
	now := r.in.Now
	switch {
	case r.c.DynamicStableScale:
		// upstream: with dynamicStableScale an older ReplicaSet no route
		// reaches goes to 0 at once, without a scale-down delay
		if rs.ScaleDownAt != nil {
			r.clearDeadline(rs.Name)
		}
	case rs.ScaleDownAt == nil:
		if d := r.ro.ScaleDownDelaySeconds(); d > 0 {
			r.setDeadline(rs.Name, now.Add(rampv1.SaturatingSeconds(int64(d))))
			return rs.Spec
		}
	case now.Before(*rs.ScaleDownAt):
		r.out.requeue(rs.ScaleDownAt.Sub(now))
		return rs.Spec
	default:
		r.clearDeadline(rs.Name)
	}
	return 0
}

// routedHealthy: like healthy, but older ReplicaSets waiting out their
// scale-down delay do not make the Rollout unhealthy (as blue-green).
func (r *canaryRun) routedHealthy() bool {
	nw := r.in.New
	if !r.stable() || nw == nil || nw.Available < r.n || nw.Replicas != r.n || r.in.Stable != nil {
		return false
	}
	for _, o := range r.in.Others {
		if o.Replicas != 0 && o.ScaleDownAt == nil {
			return false
		}
	}
	return true
}

// delayedConditions: once a routed update is stable but older pods still
// wait out their scale-down delay, the phase is Healthy (routedHealthy) yet
// the Healthy condition is False and Progressing says ReplicaSetUpdated,
// as upstream words it (its Healthy condition wants the old pods gone).
func (r *canaryRun) delayedConditions() {
	if r.aborted() || r.s.Replicas == r.n {
		return
	}
	s, now := &r.s, r.in.Now
	setCondition(s, rampv1.RolloutHealthy, corev1.ConditionFalse, rampv1.RolloutReasonHealthy, rampv1.RolloutMessageNotHealthy, now, false)
	setCondition(s, rampv1.RolloutProgressing, corev1.ConditionTrue, rampv1.RolloutReasonReplicaSetUpdated,
		fmt.Sprintf(rampv1.RolloutMessageProgressing, r.ro.Name), now, false)
}

// serving is how many available pods a ReplicaSet keeps: never more than
// its spec, since pods above it are on their way out (and a cache that has
// not seen the scale-down yet still counts them).
func serving(rs *ReplicaSet) int32 {
	if rs == nil {
		return 0
	}
	return min(rs.Available, rs.Spec)
}
