package plan

import (
	"fmt"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct{ n, weight, surge, canary, stable int32 }{
		{1, 50, 1, 1, 1},  // neither side left empty: 1 + 1
		{1, 50, 0, 1, 0},  // ... unless one pod is all there is
		{3, 20, 1, 1, 3},  // 1 of 4 (25%) is closer than 1 of 3 (33%)
		{3, 20, 0, 1, 2},  // no surge: out of 3
		{3, 50, 1, 2, 2},  // 2 of 4 is exact
		{3, 50, 0, 2, 1},  // 1.5 pods: a tie takes the larger canary
		{5, 20, 2, 1, 4},  // exact
		{10, 20, 3, 2, 8}, // exact
		{10, 5, 0, 1, 9},  // 0.5 pods: a tie, rounded up
		{10, 5, 1, 1, 10}, // 1 of 11 (9.1%) beats 1 of 10
		{10, 99, 3, 10, 1},
		{2, 75, 0, 0, 2}, // 1.5 is a tie and 2 would empty stable: no canary (as upstream)
		{5, 90, 0, 0, 5}, // likewise 4.5 of 5
		{5, 90, 1, 5, 1}, // with surge: 5 of 6
		{4, 0, 1, 0, 4},
		{4, 100, 1, 4, 0},
		{0, 50, 1, 0, 0},
		{25, 14, 0, 4, 21}, // 3.5 pods, not a tie in float64 (as upstream): 4 is as close as 3
	} {
		c, s := Split(tc.n, tc.weight, tc.surge)
		if c != tc.canary || s != tc.stable {
			t.Errorf("Split(%d, %d%%, surge %d) = %d + %d, want %d + %d", tc.n, tc.weight, tc.surge, c, s, tc.canary, tc.stable)
		}
	}
	for n := int32(0); n <= 60; n++ {
		for w := int32(0); w <= 100; w++ {
			for surge := int32(0); surge <= 1; surge++ {
				if err := checkSplit(n, w, surge); err != nil {
					t.Error(err)
				}
			}
		}
	}
}

// checkSplit verifies what Split promises.
func checkSplit(n, w, surge int32) error {
	c, s := Split(n, w, surge)
	n, w = max(n, 0), min(max(w, 0), 100)
	total, exact := c+s, float64(n)*float64(w)/100
	// Upstream's fallback: without surge, a share just below n pods that
	// no candidate may take (n-0.5 is a tie, and n would empty stable).
	fallback := surge <= 0 && w > 0 && w < 100 && exact >= float64(n)-0.5 && c == 0 && s == n
	switch {
	case fallback:
		return nil
	case c < 0 || s < 0:
		return fmt.Errorf("Split(%d, %d, %d) = %d + %d: negative", n, w, surge, c, s)
	case total != n && (surge <= 0 || total != n+1 || n <= 0):
		return fmt.Errorf("Split(%d, %d, %d) = %d + %d: not n (or n+1 with surge)", n, w, surge, c, s)
	case n > 0 && w == 0 && c != 0, n > 0 && w == 100 && s != 0:
		return fmt.Errorf("Split(%d, %d, %d) = %d + %d: 0%% and 100%% are all on one side", n, w, surge, c, s)
	case n > 0 && w > 0 && w < 100 && (n > 1 || surge > 0) && s == 0:
		return fmt.Errorf("Split(%d, %d, %d) = %d + %d: stable emptied at %d%%", n, w, surge, c, s, w)
	case n > 0 && w > 0 && w < 100 && (n > 1 || surge > 0) && c == 0:
		return fmt.Errorf("Split(%d, %d, %d) = %d + %d: no canary at %d%%", n, w, surge, c, s, w)
	case float64(c) < exact-1 || float64(c) > exact+1:
		return fmt.Errorf("Split(%d, %d, %d) = %d + %d: more than a pod from %.2f", n, w, surge, c, s, exact)
	}
	return nil
}

// checkBasic verifies the promises of one Next and Older call on b:
//   - no size is negative, and stable is 0 without a stable ReplicaSet;
//   - older ReplicaSets never grow;
//   - the pods stay within n + surge if they were, and never grow past it
//     if they were not;
//   - available pods never drop below n - unavailable, nor below what was
//     available (a scale-down removes pods that are not available first);
//   - a ReplicaSet never grows past its Target (but for keeping pods that
//     still run: a status that lags a scale-down reports more available
//     pods than replicas), and goes below it only to make room under
//     n + surge for the other side (the pods are then at n + surge).
func checkBasic(b Basic, canary, stable int32, older []int32) error {
	n := int64(max(b.N, 0))
	wantC, wantS := b.Target()
	maxTotal, minAvail := n+int64(b.Surge), n-int64(b.Unavailable)
	if canary < 0 || stable < 0 || (b.Stable == nil && stable != 0) {
		return fmt.Errorf("canary %d stable %d", canary, stable)
	}
	type move struct {
		name            string
		r               RS
		to, target      int32
		targeted, grows bool
	}
	moves := []move{{"canary", b.Canary, canary, wantC, true, true}}
	if b.Stable != nil {
		moves = append(moves, move{"stable", *b.Stable, stable, wantS, true, true})
	}
	if len(older) != len(b.Others) {
		return fmt.Errorf("%d older in, %d out", len(b.Others), len(older))
	}
	for i, o := range b.Others {
		moves = append(moves, move{o.Name, o, older[i], 0, true, false})
	}
	var before, after, availBefore, availAfter int64
	var below []string
	for _, m := range moves {
		from, avail := int64(m.r.Spec), int64(min(m.r.Available, m.r.Spec))
		to := int64(m.to)
		before, after = before+from, after+to
		availBefore, availAfter = availBefore+avail, availAfter+min(avail, to)
		switch {
		case to < 0:
			return fmt.Errorf("%s: %d -> %d", m.name, from, to)
		case !m.grows && to > from:
			return fmt.Errorf("%s: older ReplicaSet grew %d -> %d", m.name, from, to)
		case to > from && to > int64(max(m.target, m.r.Available)):
			return fmt.Errorf("%s: %d -> %d, past its target %d", m.name, from, to, m.target)
		case to < min(from, int64(m.target)):
			below = append(below, m.name)
		}
	}
	if len(below) > 0 && after != maxTotal {
		return fmt.Errorf("%v went below target with %d pods, n + surge %d", below, after, maxTotal)
	}
	switch {
	case before <= maxTotal && after > maxTotal:
		return fmt.Errorf("pods %d -> %d, above n + surge %d", before, after, maxTotal)
	case before > maxTotal && after > before:
		return fmt.Errorf("pods %d -> %d, grew above n + surge %d", before, after, maxTotal)
	case availAfter < min(availBefore, minAvail):
		return fmt.Errorf("available pods %d -> %d, below n - unavailable %d", availBefore, availAfter, minAvail)
	}
	return nil
}

func (b Basic) String() string {
	s := fmt.Sprintf("n %d surge %d unavailable %d weight %d: canary %d/%d/%d", b.N, b.Surge, b.Unavailable, b.Weight,
		b.Canary.Spec, b.Canary.Replicas, b.Canary.Available)
	if b.Stable != nil {
		s += fmt.Sprintf(" stable %d/%d/%d", b.Stable.Spec, b.Stable.Replicas, b.Stable.Available)
	}
	for _, o := range b.Others {
		s += fmt.Sprintf(" %s %d/%d/%d", o.Name, o.Spec, o.Replicas, o.Available)
	}
	return s + " (spec/replicas/available)"
}

// FuzzBasic checks Basic's promises (checkBasic) on any ReplicaSets and
// budget, seeded with the upstream table; from a state whose pods all
// become available at once, the rule must reach the step (Done) and its
// Target.
func FuzzBasic(f *testing.F) {
	for _, c := range loadUpstreamTable(f) {
		var o [2][3]int32
		copy(o[:], c.Others)
		s, hasStable := [3]int32{}, c.Stable != nil
		if hasStable {
			s = *c.Stable
		}
		f.Add(c.Replicas, c.Surge, c.Unavailable, c.Weight, c.New[0], c.New[1], c.New[2], hasStable, s[0], s[1], s[2],
			o[0][0], o[0][2], o[1][0], o[1][2])
	}
	f.Fuzz(func(t *testing.T, n, surge, unav, weight, cSpec, cRep, cAvail int32, hasStable bool, sSpec, sRep, sAvail,
		o1Spec, o1Avail, o2Spec, o2Avail int32) {
		small := func(v int32) int32 { return min(max(v, 0), 5000) }
		n, surge, weight = small(n), small(surge), min(small(weight), 100)
		unav = min(small(unav), n) // as Budget resolves it
		if surge == 0 && unav == 0 && n > 0 {
			unav = 1
		}
		rs := func(name string, spec, rep, avail int32) RS {
			return RS{Name: name, Spec: small(spec), Replicas: small(rep), Available: small(avail)}
		}
		b := Basic{N: n, Surge: surge, Unavailable: unav, Weight: weight, Canary: rs("canary", cSpec, cRep, cAvail)}
		if hasStable {
			st := rs("stable", sSpec, sRep, sAvail)
			b.Stable = &st
		}
		b.Others = []RS{rs("older1", o1Spec, o1Spec, o1Avail), rs("older2", o2Spec, o2Spec, o2Avail)}
		c, s := b.Next()
		if err := checkBasic(b, c, s, b.Older()); err != nil {
			t.Fatalf("%v: %v", b, err)
		}
		if n > 300 || b.Canary.Spec > 300 || (hasStable && b.Stable.Spec > 300) || o1Spec > 300 || o2Spec > 300 {
			return
		}
		if rounds := converge(t, b, nil, 0, 2000); rounds < 0 {
			t.Fatalf("%v: did not reach the step", b)
		}
	})
}
