package plan

import "math"

// Basic is one moment of a canary without trafficRouting, where the pods
// alone split the traffic: n replicas with their resolved budget (Budget),
// the canary weight in force and the observed ReplicaSets. Its methods are
// Argo Rollouts' replica rule for this "basic canary", so that a Rollout
// runs the same pods under Ramp as under Argo Rollouts v1.9;
// testdata/upstream-basic-canary.json, written by upstream's own code
// (test/upstream/cmd/replicatable), holds the proof.
type Basic struct {
	N, Surge, Unavailable int32
	Weight                int32 // percent; 0 on abort, 100 once the steps are done
	Canary                RS    // the ReplicaSet of spec.template (all zero before it exists)
	Stable                *RS   // nil when no ReplicaSet but the canary is stable
	Others                []RS  // every other ReplicaSet, oldest first
}

// Target is the split a step aims for: everything on the canary when there
// is no stable ReplicaSet apart from it, otherwise Split.
func (b Basic) Target() (canary, stable int32) {
	if b.Stable == nil {
		return max(b.N, 0), 0
	}
	return Split(b.N, b.Weight, b.Surge)
}

// Split is the canary and stable pod counts whose canary share comes
// closest to weight percent of n replicas. The counts add up to n, or to
// n+1 when surge allows it and that comes closer (3 replicas at 20%: 1
// canary + 3 stable, 25%). For a weight of 1..99 neither side gets 0 pods
// unless n is 1 and surge 0. The candidates are the canary count rounded
// down and up, out of n and out of n+1; a share exactly halfway between
// two counts takes the larger. When no candidate qualifies (surge 0, 75%
// of 2 replicas: 1.5 pods is a tie, and 2 would leave stable none) the
// split is 0 canary + n stable, as upstream's.
//
// Ties and distances are measured in float64 exactly as Argo Rollouts
// measures them: its rounding decides a few cases (25 replicas at 14% is
// 3.5 pods, yet not a tie in float64), and the point is the same pods.
func Split(n, weight, surge int32) (canary, stable int32) {
	if n <= 0 {
		return 0, 0
	}
	n64, w := int64(n), int64(min(max(weight, 0), 100))
	down, up := n64*w/100, (n64*w+99)/100
	zeroOK := w == 0 || w == 100 || (n == 1 && surge <= 0)
	type option struct{ canary, total int64 }
	var opts []option
	if up < n64 || zeroOK {
		opts = append(opts, option{up, n64})
	}
	if !halfway(n64, w) && (down != 0 || zeroOK) {
		opts = append(opts, option{down, n64})
	}
	if surge > 0 {
		opts = append(opts, option{up, n64 + 1})
		if !halfway(n64+1, w) && (down != 0 || zeroOK) {
			opts = append(opts, option{down, n64 + 1})
		}
	}
	if len(opts) == 0 {
		return 0, n
	}
	best := opts[0]
	for _, o := range opts[1:] {
		if shareGap(o.canary, o.total, w) < shareGap(best.canary, best.total, w) {
			best = o
		}
	}
	return int32(best.canary), int32(best.total - best.canary)
}

// halfway reports whether weight percent of total pods ends in exactly .5.
func halfway(total, weight int64) bool {
	_, frac := math.Modf(float64(total) * (float64(weight) / 100))
	return frac == 0.5
}

// shareGap is how far canary pods out of total are from weight percent.
func shareGap(canary, total, weight int64) float64 {
	return math.Abs(float64(canary*100)/float64(total) - float64(weight))
}

// Next is one reconcile's sizes of the canary and stable ReplicaSets (the
// stable size is 0 without one). First, what is short of Target grows into
// the room left under n + surge, stable before canary. While an older
// ReplicaSet still has pods (see Older), nothing else moves. Otherwise the
// side that gives pods up shrinks toward its target as far as keeping
// n - unavailable pods available allows: counting the canary's available
// pods and all of stable's while the canary grows, and the other way round
// while it shrinks (abort, a lower weight), so that pods that never become
// ready cannot hold the update. Last, the pair is fitted back under
// n + surge, taking from the shrinking side, and the other side keeps
// enough of its available pods to stay at n - unavailable.
//
// A ReplicaSet whose availableReplicas is above its replicas (a scale-down
// the ReplicaSet controller has not reported yet) counts its replicas.
func (b Basic) Next() (canary, stable int32) {
	wantC, wantS := b.Target()
	maxTotal := int64(max(b.N, 0)) + int64(b.Surge)
	c, s := int64(b.Canary.Spec), int64(0)
	if b.Stable != nil {
		s = int64(b.Stable.Spec)
	}
	var older int64
	for _, o := range b.Others {
		older += int64(o.Spec)
	}
	room := maxTotal - c - s - older
	if b.Stable != nil && s < int64(wantS) && room > 0 {
		add := min(int64(wantS)-s, room)
		s, room = s+add, room-add
	}
	if c < int64(wantC) && room > 0 {
		c += min(int64(wantC)-c, room)
	}
	if older > 0 {
		return clamp32(c), clamp32(s)
	}

	minAvail := int64(max(b.N, 0)) - int64(b.Unavailable)
	growing := wantC >= b.Canary.Spec
	countable := countableRS(b.Canary, !growing)
	if b.Stable != nil {
		countable += countableRS(*b.Stable, growing)
	}
	if countable <= minAvail {
		return clamp32(c), clamp32(s)
	}
	excess := countable - minAvail
	switch {
	case !growing:
		c = shrinkToward(b.Canary, int64(wantC), excess, c)
		c, s = refit(b.Canary, b.Stable, c, s, maxTotal, minAvail)
	case b.Stable != nil:
		s = shrinkToward(*b.Stable, int64(wantS), excess, s)
		s, c = refit(*b.Stable, &b.Canary, s, c, maxTotal, minAvail)
	}
	return clamp32(c), clamp32(s)
}

// countableRS is the pods of r that count as available before a
// scale-down: all of them when its availability is ignored.
func countableRS(r RS, all bool) int64 {
	if r.Spec < r.Available || all {
		return int64(r.Spec)
	}
	return int64(r.Available)
}

// shrinkToward takes up to excess pods from r, never below want; cur is
// returned when r is not above want.
func shrinkToward(r RS, want, excess, cur int64) int64 {
	if int64(r.Spec) <= want {
		return cur
	}
	return max(want, int64(r.Spec)-excess)
}

// refit brings the shrinking side's size (from) and the other side's (to)
// back under maxTotal: the other side gives up the overflow, but keeps as
// many of its available pods as n - unavailable (minAvail) still needs;
// what that leaves over maxTotal comes off the shrinking side.
func refit(from RS, to *RS, fromN, toN, maxTotal, minAvail int64) (int64, int64) {
	if to == nil {
		return fromN, toN
	}
	toN -= max(0, toN+fromN-maxTotal)
	avail := min(int64(from.Available), fromN) + min(int64(to.Available), toN)
	toN += min(max(0, int64(to.Available)-toN), max(0, minAvail-avail))
	fromN -= max(0, toN+fromN-maxTotal)
	return fromN, toN
}

// Older is the next size of every older ReplicaSet (b.Others, oldest
// first), as Argo Rollouts scales them down: pods that are not available go
// at once; then available pods go, newest ReplicaSet first, as far as
// n - unavailable pods stay available over all ReplicaSets. An older
// ReplicaSet reporting more available pods than its replicas (status not
// caught up yet) holds the rest of this pass, as upstream's does.
//
// One difference, on purpose: a ReplicaSet's available pods count only up
// to its replicas. Upstream counts all it reports, so pods a lagging status
// still shows after a scale-down could let it take available pods below
// n - unavailable; its own canary/stable math counts them the same way as
// here (see countableRS). The table of upstream's answers does not cover
// older ReplicaSets: upstream decides them inside its reconciler.
func (b Basic) Older() []int32 {
	out := make([]int32, len(b.Others))
	avail := availableOf(b.Canary)
	if b.Stable != nil {
		avail += availableOf(*b.Stable)
	}
	for i, o := range b.Others {
		avail += availableOf(o)
		out[i] = o.Spec
	}
	for i, o := range b.Others {
		if o.Spec == 0 || o.Spec == o.Available {
			continue
		}
		if o.Available > o.Spec {
			return out
		}
		out[i] = max(o.Available, 0)
	}
	spare := avail - (int64(max(b.N, 0)) - int64(b.Unavailable))
	for i := len(out) - 1; i >= 0 && spare > 0; i-- {
		cut := min(int64(out[i]), spare)
		if cut > 0 {
			out[i] -= int32(cut)
			spare -= cut
		}
	}
	return out
}

// availableOf is r's available pods, at most its replicas.
func availableOf(r RS) int64 { return int64(max(min(r.Available, r.Spec), 0)) }

// Done reports whether the ReplicaSets hold the step's pods: the canary
// at Next's size with all of them available, stable at Next's size with
// all of its pods created (status.replicas), and no available pod left in
// an older ReplicaSet. Next's sizes equal the current ones only when
// nothing may move, so a step never waits on pods the budget cannot give.
func (b Basic) Done() bool {
	c, s := b.Next()
	if b.Canary.Spec != c || b.Canary.Available != c {
		return false
	}
	if b.Stable != nil && (b.Stable.Spec != s || b.Stable.Replicas != s) {
		return false
	}
	for _, o := range b.Others {
		if o.Available != 0 {
			return false
		}
	}
	return true
}

func clamp32(v int64) int32 { return int32(min(max(v, 0), math.MaxInt32)) }
