package plan

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// converge drives Basic round by round until the step is reached (Done,
// at Target, older ReplicaSets at 0) and returns the rounds it took, or -1
// after maxRounds. Each round: Next and Older, checked by checkBasic; the
// sizes take effect at once, removing pods that are not available first;
// then pods become available, at most perRound more per ReplicaSet (0:
// all) and never more than readyCap[name] (pods past the cap never become
// ready). It fails t when available pods drop below n - unavailable after
// having reached it.
func converge(t testing.TB, b Basic, readyCap map[string]int32, perRound int32, maxRounds int) int {
	t.Helper()
	_, rounds := convergeTo(t, b, readyCap, perRound, maxRounds)
	return rounds
}

func convergeTo(t testing.TB, b Basic, readyCap map[string]int32, perRound int32, maxRounds int) (Basic, int) {
	t.Helper()
	if b.Stable != nil {
		s := *b.Stable
		b.Stable = &s
	}
	b.Others = append([]RS(nil), b.Others...)
	all := func() []*RS {
		rss := []*RS{&b.Canary}
		if b.Stable != nil {
			rss = append(rss, b.Stable)
		}
		for i := range b.Others {
			rss = append(rss, &b.Others[i])
		}
		return rss
	}
	available := func() (sum int64) {
		for _, r := range all() {
			sum += int64(min(r.Available, r.Spec))
		}
		return sum
	}
	minAvail := int64(b.N) - int64(b.Unavailable)
	reached := available() >= minAvail
	var trace []string
	for round := 0; round <= maxRounds; round++ {
		trace = append(trace, b.String())
		if reachedStep(b) {
			return b, round
		}
		c, s := b.Next()
		older := b.Older()
		if err := checkBasic(b, c, s, older); err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, strings.Join(trace, "\n"))
		}
		sizes := append([]int32{c}, older...)
		if b.Stable != nil {
			sizes = append([]int32{c, s}, older...)
		}
		for i, r := range all() {
			r.Spec, r.Replicas = sizes[i], sizes[i]
			r.Available = min(r.Available, r.Spec)
		}
		if reached && available() < minAvail {
			t.Fatalf("round %d: %d available < %d\n%s", round, available(), minAvail, strings.Join(trace, "\n"))
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
		reached = reached || available() >= minAvail
	}
	return b, -1
}

// reachedStep: the step is done, at its Target, and older ReplicaSets are empty.
func reachedStep(b Basic) bool {
	c, s := b.Target()
	ok := b.Done() && b.Canary.Spec == c && (b.Stable == nil || b.Stable.Spec == s)
	for _, o := range b.Others {
		ok = ok && o.Spec == 0
	}
	return ok
}

func settledRS(name string, n int32) RS { return RS{Name: name, Spec: n, Replicas: n, Available: n} }
func settledStable(n int32) *RS         { r := settledRS("stable", n); return &r }

func TestBasicSimulation(t *testing.T) {
	stableWith := func(spec, avail int32) *RS { return &RS{Name: "stable", Spec: spec, Replicas: spec, Available: avail} }
	for _, tc := range []struct {
		name       string
		start      Basic
		readyCap   map[string]int32
		perRound   int32
		wantRounds int // -1: must not settle (pods that never become ready)
		wantEnd    string
	}{
		{"n=10 weight 20 surge 1", Basic{N: 10, Surge: 1, Weight: 20, Stable: settledStable(10)}, nil, 0, 4, "canary 2 stable 8"},
		{"n=10 weight 20 defaults", Basic{N: 10, Surge: 3, Unavailable: 2, Weight: 20, Stable: settledStable(10)}, nil, 0, 1, "canary 2 stable 8"},
		{"n=10 weight 100 surge 1", Basic{N: 10, Surge: 1, Weight: 100, Stable: settledStable(10)}, nil, 0, 20, "canary 10 stable 0"},
		{"n=10 weight 100 slow pods", Basic{N: 10, Surge: 3, Unavailable: 2, Weight: 100, Stable: settledStable(10)}, nil, 1, 10, "canary 10 stable 0"},
		{"n=1 weight 50 surges", Basic{N: 1, Surge: 1, Weight: 50, Stable: settledStable(1)}, nil, 0, 1, "canary 1 stable 1"},
		{"n=3 weight 20 surges", Basic{N: 3, Surge: 1, Weight: 20, Stable: settledStable(3)}, nil, 0, 1, "canary 1 stable 3"},
		{"n=2 weight 75 surge 0 keeps stable", Basic{N: 2, Unavailable: 1, Weight: 75, Stable: settledStable(2)}, nil, 0, 0, "canary 0 stable 2"},
		{"older ReplicaSet first", Basic{N: 10, Surge: 1, Unavailable: 1, Weight: 30, Stable: settledStable(6),
			Others: []RS{settledRS("older", 4)}}, nil, 0, 4, "canary 3 stable 7"},
		{"first rollout", Basic{N: 4, Surge: 1, Unavailable: 1, Weight: 100}, nil, 0, 1, "canary 4"},
		{"crashing stable pods", Basic{N: 10, Surge: 1, Weight: 100, Stable: stableWith(10, 7)}, map[string]int32{"stable": 7}, 0, 20, "canary 10 stable 0"},
		{"abort grows stable back", Basic{N: 5, Surge: 2, Unavailable: 1, Weight: 0, Canary: settledRS("canary", 3), Stable: settledStable(2)}, nil, 0, 2, "canary 0 stable 5"},
		{"canary never ready", Basic{N: 10, Surge: 1, Weight: 100, Stable: settledStable(10)}, map[string]int32{"canary": 0}, 0, -1, ""},
		{"older never ready", Basic{N: 6, Surge: 1, Unavailable: 1, Weight: 50, Stable: settledStable(2),
			Others: []RS{{Name: "older", Spec: 4, Replicas: 4, Available: 1}}}, map[string]int32{"older": 1}, 0, 3, "canary 3 stable 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.start.Canary.Name = "canary"
			end, rounds := convergeTo(t, tc.start, tc.readyCap, tc.perRound, 50)
			t.Logf("%d rounds, ends %s", rounds, end)
			if rounds != tc.wantRounds {
				t.Errorf("reached the step after %d rounds, want %d; ends %s", rounds, tc.wantRounds, end)
			}
			got := fmt.Sprintf("canary %d", end.Canary.Spec)
			if end.Stable != nil {
				got += fmt.Sprintf(" stable %d", end.Stable.Spec)
			}
			if tc.wantRounds >= 0 && got != tc.wantEnd {
				t.Errorf("ends %s, want %s", got, tc.wantEnd)
			}
		})
	}
}

// TestBasicWeights walks n=5 with the default budget through weights
// 20..100, one step at a time, and then aborts from 60 back to 0.
func TestBasicWeights(t *testing.T) {
	surge, unav, err := Budget(5, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := Basic{N: 5, Surge: surge, Unavailable: unav, Canary: RS{Name: "canary"}, Stable: settledStable(5)}
	for i, weight := range []int32{20, 40, 60, 80, 100} {
		b.Weight = weight
		var rounds int
		b, rounds = convergeTo(t, b, nil, 0, 20)
		if rounds < 0 || b.Canary.Spec != int32(i+1) || b.Stable.Spec != int32(4-i) {
			t.Errorf("weight %d after %d rounds: %s; want canary %d stable %d", weight, rounds, b, i+1, 4-i)
		}
	}

	b = Basic{N: 5, Surge: surge, Unavailable: unav, Weight: 60, Canary: RS{Name: "canary"}, Stable: settledStable(5)}
	b, _ = convergeTo(t, b, nil, 0, 20)
	b.Weight = 0
	b, rounds := convergeTo(t, b, nil, 0, 20)
	if rounds != 2 || b.Canary.Spec != 0 || b.Stable.Spec != 5 {
		t.Errorf("abort after %d rounds: %s; want canary 0 stable 5 in 2 rounds", rounds, b)
	}
}

// TestBasicRandom runs many random small updates (random start, budget,
// weight, readiness speed and never-ready caps) through converge, which
// checks every round; those without caps must reach their step.
func TestBasicRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	rs := func(name string, max int32) RS {
		spec := r.Int32N(max)
		return RS{Name: name, Spec: spec, Replicas: spec, Available: r.Int32N(spec + 1)}
	}
	for i := range 3000 {
		n := r.Int32N(12)
		b := Basic{N: n, Surge: r.Int32N(4), Unavailable: min(r.Int32N(4), n), Weight: r.Int32N(101), Canary: rs("canary", 8)}
		if b.Surge+b.Unavailable == 0 && n > 0 {
			b.Unavailable = 1
		}
		if r.IntN(4) > 0 {
			st := rs("stable", 14)
			b.Stable = &st
		}
		for j := range r.IntN(3) {
			b.Others = append(b.Others, rs(fmt.Sprint("older", j), 6))
		}
		var caps map[string]int32
		if r.IntN(4) == 0 {
			caps = map[string]int32{"canary": r.Int32N(n + 1)}
		}
		if rounds := converge(t, b, caps, r.Int32N(3), 200); rounds < 0 && caps == nil {
			t.Fatalf("case %d from %s did not reach its step", i, b)
		}
	}
}
