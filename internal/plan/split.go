package plan

// split is the weight arithmetic of a traffic-routed canary: n replicas,
// weights in units of max (trafficRouting.maxTrafficWeight), and whether
// the canary's pods are taken from stable (an HPA targets the Rollout). It
// is a value: every method is a function of its fields and argument.
type split struct {
	n, max     int32
	fromStable bool
}

// podsFor is the canary pods of a step at weight w: ceil(w x n / max).
func (p split) podsFor(w int32) int32 {
	m := int64(max(p.max, 1))
	w = min(max(w, 0), int32(m))
	return int32((int64(p.n)*int64(w) + m - 1) / m)
}

// carried is the weight k available pods carry: their share of the
// replicas, k x max / n, rounded up. A ReplicaSet may so receive less than
// one weight unit more than its exact share; without that slack a
// replica count that does not divide max (6 replicas, 100) could not move
// a pod's worth of weight from stable to canary within replicas+1 pods.
func (p split) carried(k int32) int32 {
	m := int64(p.max)
	if p.n <= 0 {
		return int32(m)
	}
	return int32(min((int64(max(k, 0))*m+int64(p.n)-1)/int64(p.n), m))
}

// need is the fewest pods that carry weight w (the inverse of carried).
func (p split) need(w int32) int32 {
	m := int64(max(p.max, 1))
	if w <= 0 {
		return 0
	}
	return int32(min((int64(min(w, int32(m)))-1)*int64(p.n)/m+1, int64(p.n)))
}

// stableNeed is the fewest stable pods for stable weight ws: need(ws), or
// while canary pods are taken from stable what the canary leaves at that
// weight, n - ceil((max-ws) x n / max), one pod at least.
func (p split) stableNeed(ws int32) int32 {
	switch {
	case !p.fromStable:
		return p.need(ws)
	case ws <= 0:
		return 0
	}
	return max(p.n-p.podsFor(p.max-ws), 1)
}

// stableCarried is the weight s available stable pods carry: the most
// weight ws with stableNeed(ws) <= s.
func (p split) stableCarried(s int32) int32 {
	switch {
	case !p.fromStable:
		return p.carried(s)
	case s <= 0:
		return 0
	case s >= p.n:
		return p.max
	}
	return p.max - int32(int64(p.n-s-1)*int64(p.max)/int64(p.n)) - 1
}
