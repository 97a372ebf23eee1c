package main

import (
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/argoproj/argo-rollouts/pkg/apis/rollouts/v1alpha1"
)

var (
	replicaGrid = []int32{0, 1, 2, 3, 4, 5, 7, 10, 13, 20}
	weightGrid  = []int32{0, 1, 5, 10, 20, 25, 33, 50, 67, 75, 90, 99, 100}
	// midWeights are the weights tried from the mid-update states.
	midWeights = []int32{0, 1, 20, 50, 67, 99, 100}
)

type budget struct{ surge, unav *intstr.IntOrString }

func num(v int32) *intstr.IntOrString  { x := intstr.FromInt32(v); return &x }
func pct(v string) *intstr.IntOrString { x := intstr.FromString(v); return &x }

// budgetGrid is every maxSurge/maxUnavailable pair of the table; the first
// four are the ones tried from every state.
func budgetGrid() []budget {
	return []budget{
		{nil, nil}, // the defaults, 25% / 25%
		{num(1), num(0)},
		{num(0), num(1)},
		{pct("50%"), pct("50%")},
		{num(1), num(1)},
		{pct("100%"), num(0)},
		{num(10), num(10)},
		{num(0), pct("50%")},
		{pct("10%"), pct("10%")},
	}
}

func setWeight(w int32) v1alpha1.CanaryStep { return v1alpha1.CanaryStep{SetWeight: &w} }
func pause() v1alpha1.CanaryStep            { return v1alpha1.CanaryStep{Pause: &v1alpha1.RolloutPause{}} }
func canaryScale(s v1alpha1.SetCanaryScale) v1alpha1.CanaryStep {
	return v1alpha1.CanaryStep{SetCanaryScale: &s}
}

// scenarios are the ways the status can put weight w (or another) in force.
// Without trafficRouting upstream ignores setCanaryScale: those rows show it.
func scenarios(w int32) []Case {
	three, half := int32(3), int32(50)
	steps := []v1alpha1.CanaryStep{setWeight(w), pause()}
	return []Case{
		{Steps: steps, StepIndex: 0},
		{Steps: steps, StepIndex: 0, Abort: true},
		{Steps: steps, StepIndex: 2},                    // every step done, not yet promoted
		{Steps: steps, StepIndex: 1, PromoteFull: true}, // promote --full
		{Steps: steps, StepIndex: 1, Promoted: true},    // the new ReplicaSet is stable
		{Steps: []v1alpha1.CanaryStep{setWeight(w), canaryScale(v1alpha1.SetCanaryScale{Replicas: &three}), pause()}, StepIndex: 1},
		{Steps: []v1alpha1.CanaryStep{setWeight(w), canaryScale(v1alpha1.SetCanaryScale{Weight: &half}), pause()}, StepIndex: 2},
		{Steps: []v1alpha1.CanaryStep{setWeight(w), canaryScale(v1alpha1.SetCanaryScale{MatchTrafficWeight: true}), pause()}, StepIndex: 1},
	}
}

// state is a moment of an update of n replicas: the new (canary), stable
// and older ReplicaSets as observed.
type state struct {
	name   string
	new    RS
	stable RS
	others []RS
}

func settled(n int32) RS { return RS{n, n, n} }

func states(n int32) []state {
	third, half, most := (n+2)/3, (n+1)/2, (3*n+3)/4
	return []state{
		{"fresh", settled(0), settled(n), nil},
		// canary pods created, some not yet available; stable still full
		{"canary-starting", RS{third, third, third / 2}, settled(n), nil},
		// some stable pods crash-looping
		{"stable-unready", settled(0), RS{n, n, n - (n+3)/4}, nil},
		// stable just scaled down: its status still counts the old pods
		{"stable-lagging", settled(half), RS{n - half, n, n}, nil},
		// the canary is ahead of the weight (a lower weight, or an abort)
		{"canary-ahead", settled(most), settled(n - most), nil},
		// an update interrupted by a newer one: an older ReplicaSet is up
		{"older-up", RS{(n + 3) / 4, (n + 3) / 4, 0}, settled(n / 2), []RS{{n - n/2, n - n/2, max32(n-n/2-1, 0)}}},
		// everything up at once, beyond any budget
		{"over-budget", settled(n), settled(n), []RS{settled(1)}},
	}
}

// grid is the table: every replica count, weight and budget from a fresh
// update; the mid-update states with fewer weights and budgets; the other
// scenarios (abort, done, promote --full, promoted, setCanaryScale) from a
// few states.
func grid() []Case {
	budgets := budgetGrid()
	var out []Case
	add := func(n int32, b budget, c Case, st state) {
		c.Replicas, c.MaxSurge, c.MaxUnavailable = n, b.surge, b.unav
		c.State, c.New = st.name, st.new
		if !c.Promoted {
			s := st.stable
			c.Stable = &s
		}
		c.Others = append([]RS(nil), st.others...)
		out = append(out, c)
	}
	for _, n := range replicaGrid {
		sts := states(n)
		for _, w := range weightGrid {
			for _, b := range budgets {
				add(n, b, scenarios(w)[0], sts[0])
			}
		}
		for _, st := range sts[1:] {
			for _, w := range midWeights {
				for _, b := range budgets[:4] {
					add(n, b, scenarios(w)[0], st)
				}
			}
		}
		for _, sc := range scenarios(20)[1:] {
			for _, st := range []state{sts[0], sts[4], sts[5]} {
				for _, b := range budgets[:3] {
					add(n, b, sc, st)
				}
			}
		}
	}
	return out
}
