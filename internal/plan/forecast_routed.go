package plan

import (
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// routedModel is a traffic-routed canary as routedScale moves it, every pod
// available at once and each route read back in force on the next pass.
type routedModel struct {
	n, max, minPods int32
	dynamic         bool
	fromStable      bool  // an HPA: canary pods taken from stable
	canary, stable  int32 // the ReplicaSets' sizes
	held            int32 // the canary weight in force
}

// forecastRouted walks the steps of a traffic-routed canary: the canary
// grows beside a full stable, or (dynamic) within replicas+1 pods while
// stable shrinks as far as the weight in force allows; after the hand-over
// the previous stable goes to 0 (after scaleDownDelaySeconds, unless only
// dynamicStableScale shrank it: then as the stable Service leaves it).
func forecastRouted(f *CanaryForecast, ro *rampv1.Rollout, hpa bool) {
	c := ro.Spec.Strategy.Canary
	f.Routed, f.FromStable = true, hpa && !ro.HPAAccountingSurge()
	f.Dynamic = f.FromStable || c.DynamicStableScale
	if f.FromStable {
		f.MinPods = min(c.MinPodsPerReplicaSetOrDefault(), f.Replicas)
	}
	m := &routedModel{n: f.Replicas, max: max(f.MaxWeight, 1), minPods: f.MinPods, dynamic: f.Dynamic,
		fromStable: f.FromStable, stable: f.Replicas}
	for i := 0; i <= len(c.Steps); i++ {
		w, pods := m.target(c.Steps, int32(i))
		st := ForecastStep{Index: i, Step: "complete", Weight: m.max}
		if i < len(c.Steps) {
			st.Step, st.Gate, st.Weight = stepText(c.Steps[i]), stepGate(c.Steps[i]), w
		}
		st.Peak, st.Rounds = m.settle(w, pods, m.stableTarget(w, pods))
		st.Canary, st.Stable, st.Traffic = m.canary, m.stable, m.held
		st.Stalled = m.canary != pods || (i < len(c.Steps) && m.held != w)
		st.Upstream = m.n // once the previous stable is gone
		if i < len(c.Steps) {
			st.Upstream = m.upstream(w, pods, c.DynamicStableScale)
		} else if !st.Stalled {
			m.handover(&st, ro.ScaleDownDelaySeconds())
		}
		f.Steps = append(f.Steps, st)
		if st.Stalled {
			return
		}
	}
}

// handover completes the update: the previous stable, counted in the peak
// while it still has pods, goes to 0 after delaySeconds, or already as the
// stable Service leaves it when only dynamicStableScale shrinks it.
func (m *routedModel) handover(st *ForecastStep, delaySeconds int32) {
	if m.stable > 0 {
		st.Peak = max(st.Peak, m.canary+m.stable)
	}
	st.Stable, st.Traffic = 0, m.max
	if !m.dynamic || m.minPods > 0 {
		st.Delay = time.Duration(delaySeconds) * time.Second
	}
}

// target is the canary weight and pods of step idx (routedTarget).
func (m *routedModel) target(steps []rampv1.CanaryStep, idx int32) (weight, pods int32) {
	if int(idx) >= len(steps) {
		if m.dynamic {
			return m.max, m.n
		}
		return lastWeight(steps), m.n
	}
	weight = weightAt(steps, idx)
	if v, ok := canaryScaleAt(steps, idx, m.n); ok {
		return weight, min(max(v, 0), m.n)
	}
	pods = m.podsFor(weight)
	if weight > 0 {
		pods = max(pods, m.minPods)
	}
	return weight, pods
}

// stableTarget is stable's size at weight w with c canary pods.
func (m *routedModel) stableTarget(w, c int32) int32 {
	switch {
	case m.fromStable:
		return max(m.n-c, m.stableNeed(m.max-w), m.minPods)
	case !m.dynamic:
		return m.n
	}
	return max(m.n-c, m.need(m.max-w))
}

// upstream is what Argo Rollouts runs at weight w with c canary pods: no
// minPodsPerReplicaSet floor, stable full unless dynamicStableScale.
func (m *routedModel) upstream(w, c int32, dynamicStableScale bool) int32 {
	if dynamicStableScale {
		return c + max(m.n-c, m.need(m.max-w))
	}
	return c + m.n
}

// settle runs passes toward w, c canary and s stable pods until nothing
// moves; it returns the most pods at once while sizes moved, and the passes.
func (m *routedModel) settle(w, c, s int32) (peak int32, rounds int) {
	for ; rounds < 1000; rounds++ {
		route := m.routeWeight(w, c)
		room := max(max(m.n+1, c+s)-m.canary-m.stable, 0)
		size := func(from, want, share int32) int32 {
			switch {
			case want > from && m.dynamic:
				grown := from + min(want-from, room)
				room -= grown - from
				return grown
			case want < from:
				return max(want, m.floor(from, share))
			}
			return want
		}
		nc := size(m.canary, c, m.held)
		ns := size(m.stable, s, -(m.max - m.held))
		if nc == m.canary && ns == m.stable && route == m.held {
			break
		}
		if nc != m.canary || ns != m.stable {
			peak = max(peak, max(m.canary, nc)+max(m.stable, ns))
		}
		m.canary, m.stable, m.held = nc, ns, route
	}
	return peak, rounds
}

// routeWeight is the canary weight sent toward w (routeWeight): once the
// step's pods are available, or (dynamic) what both sides' pods carry.
func (m *routedModel) routeWeight(w, c int32) int32 {
	hi := m.carried(m.canary)
	if !m.dynamic {
		if m.canary >= min(c, m.podsFor(w)) && (w == 0 || m.canary > 0) {
			return w
		}
		return min(w, m.held, hi)
	}
	lo := m.max - m.stableCarried(m.stable)
	if lo > hi {
		return min(max(m.held, lo), hi)
	}
	return min(max(w, lo), hi)
}

// floor is the smallest size a ReplicaSet carrying weight share may shrink
// to: one pod while a Service still selects it with no weight. A negative
// share is stable's (-share), whose need differs with an HPA.
func (m *routedModel) floor(size, share int32) int32 {
	switch {
	case share == 0:
		return min(size, 1)
	case share < 0:
		return min(size, m.stableNeed(-share))
	}
	return min(size, m.need(share))
}

// stableNeed is canaryRun.stableNeed.
func (m *routedModel) stableNeed(ws int32) int32 {
	if !m.fromStable {
		return m.need(ws)
	}
	return max(m.n-m.podsFor(m.max-ws), 1)
}

// stableCarried is canaryRun.stableCarried.
func (m *routedModel) stableCarried(s int32) int32 {
	switch {
	case !m.fromStable:
		return m.carried(s)
	case s <= 0:
		return 0
	case s >= m.n:
		return m.max
	}
	return m.max - int32(int64(m.n-s-1)*int64(m.max)/int64(m.n)) - 1
}

// podsFor is how many pods carry weight w: ceil(w x n / max).
func (m *routedModel) podsFor(w int32) int32 {
	w = min(max(w, 0), m.max)
	return int32((int64(m.n)*int64(w) + int64(m.max) - 1) / int64(m.max))
}

// carried is the weight k pods carry, rounded up (canaryRun.carried).
func (m *routedModel) carried(k int32) int32 {
	if m.n <= 0 {
		return m.max
	}
	return int32(min((int64(max(k, 0))*int64(m.max)+int64(m.n)-1)/int64(m.n), int64(m.max)))
}

// need is the fewest pods that carry weight w (canaryRun.need).
func (m *routedModel) need(w int32) int32 {
	if w <= 0 {
		return 0
	}
	return int32(min((int64(min(w, m.max))-1)*int64(m.n)/int64(m.max)+1, int64(m.n)))
}
