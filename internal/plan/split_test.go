package plan

import (
	"fmt"
	"slices"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestSplitTable: the weight arithmetic with maxTrafficWeight 1000, 100 and
// 7, against values worked out by hand from the definitions: podsFor =
// ceil(w n / max), carried = min(ceil(k max / n), max), need = the fewest
// pods whose carried reaches w, and with canary pods taken from stable,
// stableNeed(ws) = max(n - podsFor(max - ws), 1).
func TestSplitTable(t *testing.T) {
	for _, tc := range []struct {
		p          split
		fn         string
		args, want []int32
	}{
		{split{n: 5, max: 1000}, "podsFor", []int32{-3, 0, 1, 200, 201, 1000, 1500}, []int32{0, 0, 1, 1, 2, 5, 5}},
		{split{n: 5, max: 1000}, "carried", []int32{0, 1, 5, 7}, []int32{0, 200, 1000, 1000}},
		{split{n: 5, max: 1000}, "need", []int32{0, 200, 201, 1000}, []int32{0, 1, 2, 5}},
		{split{n: 5, max: 1000, fromStable: true}, "stableNeed", []int32{399, 400, 1000}, []int32{1, 2, 5}},
		{split{n: 5, max: 1000, fromStable: true}, "stableCarried", []int32{1, 4, 5}, []int32{399, 999, 1000}},
		{split{n: 6, max: 100}, "podsFor", []int32{10, 17, 50}, []int32{1, 2, 3}},
		{split{n: 6, max: 100}, "carried", []int32{1, 3}, []int32{17, 50}},
		{split{n: 3, max: 7}, "podsFor", []int32{1, 3, 5, 7}, []int32{1, 2, 3, 3}},
		{split{n: 3, max: 7}, "carried", []int32{1, 2, 3}, []int32{3, 5, 7}},
		{split{n: 3, max: 7}, "need", []int32{3, 4, 5, 6, 7}, []int32{1, 2, 2, 3, 3}},
		{split{n: 3, max: 7}, "stableNeed", []int32{4, 7}, []int32{2, 3}},
		{split{n: 3, max: 7, fromStable: true}, "stableNeed", []int32{0, 4, 5, 7}, []int32{0, 1, 2, 3}},
		{split{n: 3, max: 7, fromStable: true}, "stableCarried", []int32{0, 1, 2, 3}, []int32{0, 4, 6, 7}},
	} {
		f := map[string]func(int32) int32{"podsFor": tc.p.podsFor, "carried": tc.p.carried, "need": tc.p.need,
			"stableNeed": tc.p.stableNeed, "stableCarried": tc.p.stableCarried}[tc.fn]
		got := make([]int32, len(tc.args))
		for i, a := range tc.args {
			got[i] = f(a)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%+v.%s(%v) = %v, want %v", tc.p, tc.fn, tc.args, got, tc.want)
		}
	}
}

// TestSplitInverses: for every replica count up to 12 and maxTrafficWeight
// 7, 100 and 1000, need is the inverse of carried, carried exceeds a pod
// share by less than one unit, and stableCarried is the most stable weight
// whose stableNeed the given pods meet.
func TestSplitInverses(t *testing.T) {
	for _, m := range []int32{7, 100, 1000} {
		for n := int32(1); n <= 12; n++ {
			for _, fromStable := range []bool{false, true} {
				p := split{n: n, max: m, fromStable: fromStable}
				if p.podsFor(0) != 0 || p.podsFor(m) != n {
					t.Errorf("%+v: podsFor(0) = %d, podsFor(max) = %d", p, p.podsFor(0), p.podsFor(m))
				}
				for k := int32(0); k <= n; k++ {
					if c := p.carried(k); p.need(c) > k || int64(c)*int64(n) >= int64(k)*int64(m)+int64(n) {
						t.Errorf("%+v: %d pods carry %d, which needs %d pods", p, k, c, p.need(c))
					}
					best := int32(0)
					for ws := int32(0); ws <= m; ws++ {
						if p.stableNeed(ws) <= k {
							best = ws
						}
					}
					if got := p.stableCarried(k); got != best {
						t.Errorf("%+v: stableCarried(%d) = %d, want %d", p, k, got, best)
					}
				}
				for w := int32(1); w <= m; w++ {
					if k := p.need(w); p.carried(k) < w || p.carried(k-1) >= w {
						t.Errorf("%+v: need(%d) = %d, which carries %d (one fewer: %d)", p, w, k, p.carried(k), p.carried(k-1))
					}
				}
			}
		}
	}
}

// TestRoutedCanaryMaxWeight: a routed canary with maxTrafficWeight 1000 and
// 7 walks its steps in those units: the canary gets ceil(w n / max) pods,
// no route sends a side more than its available pods carry, and the status
// weights add up to max.
func TestRoutedCanaryMaxWeight(t *testing.T) {
	for _, tc := range []struct {
		max     int32
		dynamic bool
		steps   []int32
		routes  []string
		sizes   []string // nil: not checked (dynamic scaling depends on the pass order)
	}{
		{1000, false, []int32{200, 500}, []string{"0 v1/v1", "200 v1/v2", "500 v1/v2", "0 v2/v2"},
			[]string{"v1=5 v2=1", "v1=5 v2=3", "v1=5 v2=5", "v1=0 v2=5"}},
		{7, false, []int32{2, 5}, []string{"0 v1/v1", "2 v1/v2", "5 v1/v2", "0 v2/v2"},
			[]string{"v1=5 v2=2", "v1=5 v2=4", "v1=5 v2=5", "v1=0 v2=5"}},
		{7, true, []int32{2, 5}, nil, nil},
		{1000, true, []int32{200, 500}, nil, nil},
	} {
		t.Run(fmt.Sprintf("max=%d/dynamic=%v", tc.max, tc.dynamic), func(t *testing.T) {
			var steps []rampv1.CanaryStep
			for _, w := range tc.steps {
				steps = append(steps, weight(w))
			}
			s := newRoutedSim(t, tc.dynamic, steps...)
			s.ro.Spec.Strategy.Canary.TrafficRouting.MaxTrafficWeight = ptrTo(tc.max)
			if msg := ValidateStrategy(s.ro); msg != "" {
				t.Fatalf("ValidateStrategy: %s", msg)
			}
			s.run("v1", time.Minute)
			s.routes, s.sizes = nil, nil
			s.each = func(in Input, out Output) { maxWeightChecks(t, s, tc.max, in, out) }
			s.run("v2", 2*time.Minute)
			if tc.routes != nil && !slices.Equal(s.routes, tc.routes) {
				t.Errorf("routes:\n got %q\nwant %q", s.routes, tc.routes)
			}
			if tc.sizes != nil && !slices.Equal(s.sizes, tc.sizes) {
				t.Errorf("sizes:\n got %q\nwant %q", s.sizes, tc.sizes)
			}
			if st := s.ro.Status; st.StableRS != "v2" || s.rs["v1"].Spec != 0 || s.traffic.Route.Canary != 0 ||
				s.traffic.Route.StableHash != "v2" || !*st.Canary.Weights.Verified {
				t.Errorf("end: stableRS %s, sizes %q, route %+v", st.StableRS, s.sizes, s.traffic.Route)
			}
		})
	}
}

func maxWeightChecks(t *testing.T, s *routedSim, m int32, in Input, out Output) {
	t.Helper()
	rt := *out.Route
	if rt.Max != m || rt.Canary < 0 || rt.Canary > m {
		t.Errorf("%s: route %+v, want weights in 0..%d", s.at(), rt, m)
	}
	if w := out.Status.Canary.Weights; w == nil || w.Canary.Weight+w.Stable.Weight != m {
		t.Errorf("%s: status weights %+v do not add up to %d", s.at(), w, m)
	}
	// k available pods carry ceil(k max / n): a route never sends more.
	carries := func(rs *ReplicaSet) int32 {
		if rs == nil {
			return 0
		}
		return int32((int64(serving(rs))*int64(m) + 4) / 5)
	}
	if rt.CanaryHash == in.NewHash && rt.StableHash != in.NewHash && rt.Canary > carries(in.New) {
		t.Errorf("%s: route sends %d/%d to the canary, whose %d available pods carry %d", s.at(), rt.Canary, m, serving(in.New), carries(in.New))
	}
	if st := in.Stable; st != nil && rt.StableHash == st.Hash && rt.Stable() > carries(st) && rt.Stable() > 0 {
		t.Errorf("%s: route sends %d/%d to stable, whose %d available pods carry %d", s.at(), rt.Stable(), m, serving(st), carries(st))
	}
}
