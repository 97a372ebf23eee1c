package plan

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// simulate drives Step round by round until the ReplicaSets settle at their
// targets, and returns the rounds it took, or -1 after maxRounds. Each round:
// Step, checked against its invariants; scale-downs take effect at once and
// remove unavailable pods first; then pods become available, at most perRound
// more per ReplicaSet (0: all) and never more than readyCap[name] (pods past
// the cap never become ready). It fails t when total available pods drop
// below n-unavailable after having reached it. in is updated in place.
func simulate(t testing.TB, in *stepCase, readyCap map[string]int32, perRound int32, maxRounds int) int {
	t.Helper()
	if in.stable != nil {
		s := *in.stable
		in.stable = &s
	}
	in.others = append([]RS(nil), in.others...)
	all := func() []*RS {
		rss := []*RS{&in.canary}
		if in.stable != nil {
			rss = append(rss, in.stable)
		}
		for i := range in.others {
			rss = append(rss, &in.others[i])
		}
		return rss
	}
	availTotal := func() (sum int64) {
		for _, r := range all() {
			sum += int64(min(max(r.Available, 0), r.Spec))
		}
		return sum
	}
	minAvail := int64(max(in.n, 0)) - int64(in.unav)
	reached := availTotal() >= minAvail
	var trace []string
	for round := 0; round <= maxRounds; round++ {
		trace = append(trace, in.String())
		if in.settled() {
			return round
		}
		c, s, o := in.step()
		if err := checkStep(*in, c, s, o); err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, strings.Join(trace, "\n"))
		}
		specs := append([]int32{c, s}, o...)
		if in.stable == nil {
			specs = append([]int32{c}, o...)
		}
		for i, r := range all() {
			r.Spec = specs[i]
			r.Available = min(r.Available, r.Spec)
		}
		if reached && availTotal() < minAvail {
			t.Fatalf("round %d: %d available < %d\n%s", round, availTotal(), minAvail, strings.Join(trace, "\n"))
		}
		for _, r := range all() {
			ready := r.Spec
			if perRound > 0 {
				ready = min(ready, r.Available+perRound)
			}
			if limit, ok := readyCap[r.Name]; ok {
				ready = min(ready, limit)
			}
			r.Available = max(r.Available, ready)
		}
		reached = reached || availTotal() >= minAvail
	}
	return -1
}

// settled reports whether every ReplicaSet is at its target and fully available.
func (c *stepCase) settled() bool {
	n := max(c.n, 0)
	target := min(max(c.target, 0), n)
	ok := c.canary.Spec == target && c.canary.Available == target
	if c.stable != nil {
		ok = ok && c.stable.Spec == n-target && c.stable.Available == c.stable.Spec
	}
	for _, o := range c.others {
		ok = ok && o.Spec == 0
	}
	return ok
}

func (c *stepCase) String() string {
	s := fmt.Sprintf("target %d: canary %d/%d", c.target, c.canary.Available, c.canary.Spec)
	if c.stable != nil {
		s += fmt.Sprintf(" stable %d/%d", c.stable.Available, c.stable.Spec)
	}
	for _, o := range c.others {
		s += fmt.Sprintf(" %s %d/%d", o.Name, o.Available, o.Spec)
	}
	return s
}

func TestStepSimulation(t *testing.T) {
	for _, tc := range []struct {
		name       string
		start      stepCase
		readyCap   map[string]int32
		perRound   int32
		wantRounds int // -1: must not settle (pods that never become ready)
	}{
		{"rolling n=10 surge 1", stepCase{10, 1, 0, 10, rs("c", 0, 0), rsp(10, 10), nil}, nil, 0, 11},
		{"rolling n=10 defaults", stepCase{10, 3, 2, 10, rs("c", 0, 0), rsp(10, 10), nil}, nil, 0, 3},
		{"rolling n=10 slow pods", stepCase{10, 3, 2, 10, rs("c", 0, 0), rsp(10, 10), nil}, nil, 1, 10},
		{"with older RS", stepCase{10, 1, 1, 3, rs("c", 0, 0), rsp(6, 6), []RS{rs("old", 4, 4)}}, nil, 0, 3},
		{"rolling with older RSs", stepCase{10, 1, 0, 10, rs("c", 0, 0), rsp(5, 5), []RS{rs("a", 3, 3), rs("b", 2, 2)}}, nil, 0, 11},
		{"n=1", stepCase{1, 1, 0, 1, rs("c", 0, 0), rsp(1, 1), nil}, nil, 0, 2},
		{"n=0 scales to zero", stepCase{0, 0, 1, 0, rs("c", 2, 2), rsp(3, 3), []RS{rs("old", 1, 0)}}, nil, 0, 1},
		{"surge 0 unavailable 1", stepCase{4, 0, 1, 4, rs("c", 0, 0), rsp(4, 4), nil}, nil, 0, 4},
		{"first rollout", stepCase{4, 1, 1, 4, rs("c", 0, 0), nil, nil}, nil, 0, 1},
		{"crashing stable pods", stepCase{10, 1, 0, 10, rs("c", 0, 0), rsp(10, 7), nil}, map[string]int32{"stable": 7}, 0, 8},
		{"canary never ready", stepCase{10, 1, 0, 10, rs("c", 0, 0), rsp(10, 10), nil}, map[string]int32{"c": 0}, 0, -1},
		{"canary ready up to 3", stepCase{5, 2, 1, 5, rs("c", 0, 0), rsp(5, 5), nil}, map[string]int32{"c": 3}, 0, -1},
		{"old RS never ready", stepCase{6, 1, 1, 2, rs("c", 0, 0), rsp(2, 2), []RS{rs("old", 4, 1)}}, map[string]int32{"old": 1}, 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := tc.start
			rounds := simulate(t, &st, tc.readyCap, tc.perRound, 50)
			t.Logf("%s: %d rounds, ends %s", tc.name, rounds, st.String())
			if rounds != tc.wantRounds {
				t.Errorf("settled after %d rounds, want %d; ends %s", rounds, tc.wantRounds, st.String())
			}
			if tc.wantRounds < 0 && st.stable != nil && st.stable.Available < st.n-st.unav-st.canary.Available {
				t.Errorf("scaled available stable pods away: %s", st.String())
			}
		})
	}
}

// TestStepWeights walks n=5 with the default budget through weights 20..100
// one step at a time, and then aborts from 60 back to 0.
func TestStepWeights(t *testing.T) {
	surge, unav, err := Budget(5, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := stepCase{5, surge, unav, 0, rs("c", 0, 0), rsp(5, 5), nil}
	for i, weight := range []int32{20, 40, 60, 80, 100} {
		st.target = CanaryReplicas(5, weight)
		rounds := simulate(t, &st, nil, 0, 20)
		t.Logf("weight %d: %d rounds, ends %s", weight, rounds, st.String())
		if rounds < 0 || st.canary.Spec != int32(i+1) || st.stable.Spec != int32(4-i) {
			t.Errorf("weight %d after %d rounds: %s; want canary %d stable %d", weight, rounds, st.String(), i+1, 4-i)
		}
	}

	st = stepCase{5, surge, unav, CanaryReplicas(5, 60), rs("c", 0, 0), rsp(5, 5), nil}
	if rounds := simulate(t, &st, nil, 0, 20); rounds < 0 {
		t.Fatalf("weight 60 did not settle: %s", st.String())
	}
	st.target = 0
	rounds := simulate(t, &st, nil, 0, 20)
	t.Logf("abort from 60: %d rounds, ends %s", rounds, st.String())
	if rounds != 2 || st.canary.Spec != 0 || st.stable.Spec != 5 {
		t.Errorf("abort after %d rounds: %s; want canary 0 stable 5 in 2 rounds", rounds, st.String())
	}
}

// TestStepRandom runs many random small rollouts (random start, budget,
// readiness speed and never-ready caps) through simulate, which checks every
// Step call; those without caps must settle.
func TestStepRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := range 3000 {
		n := r.Int32N(12)
		st := stepCase{n: n, surge: r.Int32N(4), unav: r.Int32N(4), target: r.Int32N(n + 1)}
		if st.surge+st.unav == 0 {
			st.unav = 1
		}
		st.canary = rs("c", r.Int32N(8), r.Int32N(8))
		if r.IntN(4) > 0 {
			st.stable = rsp(r.Int32N(14), r.Int32N(14))
		} else {
			st.target = n
		}
		for j := range r.IntN(3) {
			st.others = append(st.others, rs(fmt.Sprint("old", j), r.Int32N(6), r.Int32N(6)))
		}
		var caps map[string]int32
		if r.IntN(4) == 0 {
			caps = map[string]int32{"c": r.Int32N(n + 1)}
		}
		start := st.String()
		if rounds := simulate(t, &st, caps, r.Int32N(3), 100); rounds < 0 && caps == nil {
			t.Fatalf("case %d (n %d surge %d unav %d) from %s did not settle: %s", i, n, st.surge, st.unav, start, st.String())
		}
	}
}
