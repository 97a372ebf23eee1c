package plan

import (
	"reflect"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// A traffic-routed canary obeys one rule: a ReplicaSet never shrinks below
// the pods it needs for the traffic the routers were last read back sending
// it, and a route never sends a ReplicaSet more traffic than its available
// pods carry. Weights are in units of trafficRouting.maxTrafficWeight.

func (r *canaryRun) routed() bool { return r.c.TrafficRouting != nil }

func (r *canaryRun) maxWeight() int32 { return r.c.MaxTrafficWeight() }

// split is the weight arithmetic of this pass.
func (r *canaryRun) split() split {
	return split{n: r.n, max: r.maxWeight(), fromStable: r.takesFromStable()}
}

// held is the route the routers were read back holding (ok false: unknown
// or not yet confirmed).
func (r *canaryRun) held() (traffic.Route, bool) {
	t := r.in.Traffic
	if t == nil || !t.InForce {
		return traffic.Route{}, false
	}
	return t.Route, true
}

// shareOf is the weight a pod-template hash carries now, through the held
// route or any Service selecting it (ok false: unknown, so keep its pods).
func (r *canaryRun) shareOf(hash string) (int32, bool) {
	rt, ok := r.held()
	if !ok {
		return 0, false
	}
	var w int32
	if hash == rt.CanaryHash || hash == r.in.ServiceHash[r.c.CanaryService] {
		w += rt.Canary
	}
	if hash == rt.StableHash || hash == r.in.ServiceHash[r.c.StableService] {
		w += rt.Stable()
	}
	return w, true
}

// selected reports whether a Service of the Rollout selects hash now.
func (r *canaryRun) selected(hash string) bool {
	return hash != "" && (r.in.ServiceHash[r.c.CanaryService] == hash || r.in.ServiceHash[r.c.StableService] == hash)
}

// floorFor is the smallest size rs may shrink to now, or its current size
// when its traffic is unknown.
func (r *canaryRun) floorFor(rs *ReplicaSet) int32 {
	w, ok := r.shareOf(rs.Hash)
	if !ok {
		return rs.Spec
	}
	if w == 0 && r.selected(rs.Hash) && !r.c.DynamicStableScale {
		// A selector still points here: keep a pod behind it. With
		// dynamicStableScale upstream lets a side with no route weight
		// go to 0 while its Service still selects it, and so does Ramp.
		return min(rs.Spec, 1)
	}
	if rs.Hash == r.s.StableRS {
		return min(rs.Spec, r.split().stableNeed(w))
	}
	return min(rs.Spec, r.split().need(w))
}

// routedTarget is the step's canary weight and canary pod count at idx.
func (r *canaryRun) routedTarget(idx int32) (weight, pods int32) {
	switch {
	case r.aborted():
		return 0, 0
	case r.stable():
		return 0, r.n
	case int(idx) >= len(r.steps): // promoting: full canary, last weight held
		weight = lastWeight(r.steps)
		if r.dynamic() {
			weight = r.maxWeight()
		}
		return weight, r.n
	}
	weight = weightAt(r.steps, idx)
	if v, ok := canaryScaleAt(r.steps, idx, r.n); ok {
		return weight, min(max(v, 0), r.n)
	}
	pods = r.split().podsFor(weight)
	if weight > 0 {
		pods = max(pods, r.minPods())
	}
	return weight, pods
}

// stableTarget is the stable size at canary weight w with c canary pods:
// full; with an HPA the rest, replicas - c, never below
// minPodsPerReplicaSet, so the HPA counts replicas pods (nor below what w
// leaves stable, should a setCanaryScale give fewer canary pods); with
// dynamicStableScale the rest, never fewer than w's stable share needs.
func (r *canaryRun) stableTarget(w, c int32) int32 {
	switch {
	case r.takesFromStable(): // stableNeed(max-w) is n - c unless setCanaryScale sets c
		return max(r.n-c, r.split().stableNeed(r.maxWeight()-w), r.minPods())
	case !r.dynamic():
		return r.n
	}
	return max(r.n-c, r.split().need(r.maxWeight()-w))
}

// routeWeight is the canary weight to send now toward the step's weight w
// (with c canary pods wanted): never more than the available canary pods
// carry, never less than the available stable pods leave (dynamic scale).
//
// Counts of a canary ReplicaSet that predate its spec (Unobserved) never
// raise the weight above the one in force; they may lower it.
func (r *canaryRun) routeWeight(w, c int32) int32 {
	out, prev := r.carriedWeight(w, c)
	if nw := r.in.New; nw != nil && nw.Unobserved {
		return min(out, prev)
	}
	return out
}

// carriedWeight is routeWeight on the counts as they are, and the canary
// weight in force (0 when the route holds another canary).
func (r *canaryRun) carriedWeight(w, c int32) (weight, prev int32) {
	nw, st := r.in.New, r.in.Stable
	canaryAvail := serving(nw)
	hi := r.split().carried(canaryAvail)
	prev = 0
	if rt, ok := r.held(); ok && rt.CanaryHash == r.in.NewHash {
		prev = rt.Canary
	}
	if !r.dynamic() {
		if canaryAvail >= min(c, r.split().podsFor(w)) && (w == 0 || canaryAvail > 0) {
			return w, prev
		}
		return min(w, prev, hi), prev // hold until the step's canary pods are available
	}
	lo := int32(0)
	if st != nil {
		lo = r.maxWeight() - r.split().stableCarried(serving(st))
	}
	if lo > hi {
		return min(max(prev, lo), hi), prev
	}
	return min(max(w, lo), hi), prev
}

// managedAt lists the header and mirror routes in force at step idx (the
// step itself included), in managedRoutes order.
func (r *canaryRun) managedAt(idx int32) (headers []rampv1.SetHeaderRoute, mirrors []rampv1.SetMirrorRoute) {
	return ManagedRoutesAt(r.c, idx)
}

// ManagedRoutesAt lists the header and mirror routes a traffic-routed
// canary holds at step idx (the step itself included), in managedRoutes
// order: for each name, the last setHeaderRoute or setMirrorRoute step up
// to idx, unless that step removed it (no match).
func ManagedRoutesAt(c *rampv1.CanaryStrategy, idx int32) (headers []rampv1.SetHeaderRoute, mirrors []rampv1.SetMirrorRoute) {
	if c == nil || c.TrafficRouting == nil {
		return nil, nil
	}
	steps := c.Steps
	hs, ms := map[string]int{}, map[string]int{}
	for i := 0; i <= int(idx) && i < len(steps); i++ {
		if h := steps[i].SetHeaderRoute; h != nil {
			hs[h.Name] = i
			if len(h.Match) == 0 {
				delete(hs, h.Name)
			}
		}
		if m := steps[i].SetMirrorRoute; m != nil {
			ms[m.Name] = i
			if len(m.Match) == 0 {
				delete(ms, m.Name)
			}
		}
	}
	for _, mr := range c.TrafficRouting.ManagedRoutes {
		if i, ok := hs[mr.Name]; ok {
			headers = append(headers, *steps[i].SetHeaderRoute)
		}
		if i, ok := ms[mr.Name]; ok {
			mirrors = append(mirrors, *steps[i].SetMirrorRoute)
		}
	}
	return headers, mirrors
}

func lastWeight(steps []rampv1.CanaryStep) int32 {
	return weightAt(steps, int32(len(steps))-1)
}

// sameRoute compares two routes, managed routes included.
func sameRoute(a, b traffic.Route) bool { return reflect.DeepEqual(a, b) }
