package plan

import (
	"fmt"
	"math"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// RS is what the replica math needs to know about one ReplicaSet.
type RS struct {
	Name      string
	Spec      int32 // .spec.replicas
	Available int32 // .status.availableReplicas (never above Spec for a settled RS; may lag)
}

// defaultBudget is the maxSurge and maxUnavailable of a strategy that sets neither.
var defaultBudget = intstr.FromString("25%")

// Budget resolves maxSurge and maxUnavailable (int or percentage of replicas,
// nil = the default "25%") for n replicas: surge rounds UP, unavailable rounds
// DOWN (as Deployments do); if both resolve to 0, unavailable becomes 1.
// A malformed or negative value is an error.
func Budget(n int32, maxSurge, maxUnavailable *intstr.IntOrString) (surge, unavailable int32, err error) {
	if surge, err = resolve("maxSurge", maxSurge, n, true); err != nil {
		return 0, 0, err
	}
	if unavailable, err = resolve("maxUnavailable", maxUnavailable, n, false); err != nil {
		return 0, 0, err
	}
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return surge, unavailable, nil
}

// resolve scales one budget field against n replicas.
func resolve(field string, v *intstr.IntOrString, n int32, roundUp bool) (int32, error) {
	v = intstr.ValueOrDefault(v, defaultBudget)
	got, err := intstr.GetScaledValueFromIntOrPercent(v, int(max(n, 0)), roundUp)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", field, err)
	}
	if got < 0 || got > math.MaxInt32 {
		return 0, fmt.Errorf("%s: %s resolves to %d, want 0..%d", field, v.String(), got, math.MaxInt32)
	}
	return int32(got), nil
}

// CanaryReplicas is ceil(weight x n / 100) for weight in 0..100 (the canary
// share is rounded up, as in Argo Rollouts). weight 0 -> 0, weight 100 -> n.
// A weight outside 0..100 is clamped into it.
func CanaryReplicas(n, weight int32) int32 {
	n, weight = max(n, 0), min(max(weight, 0), 100)
	return int32((int64(n)*int64(weight) + 99) / 100)
}

// rsPlan is one ReplicaSet while Step works on it. Counts are int64 so that
// sums over many ReplicaSets cannot overflow.
type rsPlan struct {
	spec, avail, target int64
}

// unready is how many of the ReplicaSet's desired pods are not available.
func (p *rsPlan) unready() int64 { return p.spec - p.avail }

// Step moves the ReplicaSets one safe step toward canaryTarget canary pods and
// n-canaryTarget stable pods, returning the new .spec.replicas of each.
// others are older ReplicaSets (neither canary nor stable), oldest first: they
// go to 0. stable may be nil (first rollout / no stable): then stableSpec is 0
// and only the canary and others move; a caller that wants the first rollout
// at full scale passes canaryTarget = n. Invariants for the returned specs,
// given the inputs' Available counts:
//   - sum of specs <= n + surge (never create pods beyond the surge budget;
//     if the inputs already exceed it, only scale down)
//   - pods are only removed from a ReplicaSet while the total AVAILABLE pods
//     stay >= n - unavailable; unavailable pods (Spec - Available) of any RS may
//     always be removed first (scale those down first, oldest RS first: others,
//     then stable, then canary when shrinking);
//   - never scale a RS below its own target (others target 0, stable target
//     n - canaryTarget, canary target canaryTarget) and never above it;
//   - it makes progress whenever progress is possible (scale up the canary as far
//     as the surge budget allows in the same call in which it scales down what it may).
//
// When canaryTarget shrinks (abort: canaryTarget 0), stable is scaled UP first
// (within surge) and the canary down as availability allows.
//
// Negative inputs count as 0, canaryTarget is clamped to 0..n, and an
// Available above Spec counts as Spec (the surplus pods are terminating).
func Step(n, surge, unavailable, canaryTarget int32, canary RS, stable *RS, others []RS) (canarySpec int32, stableSpec int32, othersSpec []int32) {
	n = max(n, 0)
	canaryTarget = min(max(canaryTarget, 0), n)

	// Scale-down order: oldest first, so others, then stable, then canary.
	plans := make([]*rsPlan, 0, len(others)+2)
	for _, o := range others {
		plans = append(plans, newPlan(o, 0))
	}
	var st *rsPlan
	if stable != nil {
		st = newPlan(*stable, n-canaryTarget)
		plans = append(plans, st)
	}
	cn := newPlan(canary, canaryTarget)
	plans = append(plans, cn)

	var total, avail int64
	for _, p := range plans {
		total += p.spec
		avail += p.avail
	}
	maxTotal := int64(n) + int64(max(surge, 0))
	overBudget := total > maxTotal

	// 1. Pods that are not available cost no availability: drop them first.
	for _, p := range plans {
		drop := min(p.spec-p.target, p.unready())
		if drop > 0 {
			p.spec -= drop
			total -= drop
		}
	}
	// 2. Available pods go only while enough stay available.
	spare := avail - (int64(n) - int64(max(unavailable, 0)))
	for _, p := range plans {
		drop := min(p.spec-p.target, spare)
		if drop > 0 {
			p.spec -= drop
			p.avail -= drop
			total -= drop
			spare -= drop
		}
	}
	// 3. Grow toward the targets within the surge budget, the canary first
	// when both are short (n grew). When the canary shrinks (abort, lower
	// weight) it cannot grow, so stable takes all the room left by step 2.
	if !overBudget {
		for _, p := range []*rsPlan{cn, st} {
			if p == nil {
				continue
			}
			add := min(p.target-p.spec, maxTotal-total)
			if add > 0 {
				p.spec += add
				total += add
			}
		}
	}

	othersSpec = make([]int32, len(others))
	for i := range others {
		othersSpec[i] = int32(plans[i].spec)
	}
	if st != nil {
		stableSpec = int32(st.spec)
	}
	return int32(cn.spec), stableSpec, othersSpec
}

// newPlan clamps what is known about one ReplicaSet into a plan toward target.
func newPlan(r RS, target int32) *rsPlan {
	spec := int64(max(r.Spec, 0))
	return &rsPlan{spec: spec, avail: min(int64(max(r.Available, 0)), spec), target: int64(target)}
}
