package plan

import (
	"fmt"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestBudget(t *testing.T) {
	i, s := intstr.FromInt32, intstr.FromString
	ptr := func(v intstr.IntOrString) *intstr.IntOrString { return &v }
	for _, tc := range []struct {
		n                   int32
		maxSurge, maxUnav   *intstr.IntOrString
		wantSurge, wantUnav int32
		wantErr             bool
	}{
		{n: 10, wantSurge: 3, wantUnav: 2}, // defaults 25%: ceil 2.5, floor 2.5
		{n: 4, wantSurge: 1, wantUnav: 1},
		{n: 1, wantSurge: 1, wantUnav: 0},
		{n: 0, wantSurge: 0, wantUnav: 1},
		{n: 5, maxSurge: ptr(s("50%")), maxUnav: ptr(s("50%")), wantSurge: 3, wantUnav: 2},
		{n: 10, maxSurge: ptr(i(1)), maxUnav: ptr(i(0)), wantSurge: 1, wantUnav: 0},
		{n: 10, maxSurge: ptr(i(0)), maxUnav: ptr(i(0)), wantSurge: 0, wantUnav: 1},
		{n: 3, maxSurge: ptr(s("0%")), maxUnav: ptr(s("10%")), wantSurge: 0, wantUnav: 1},
		{n: 10, maxSurge: ptr(s("100%")), maxUnav: ptr(i(0)), wantSurge: 10, wantUnav: 0},
		{n: 10, maxSurge: ptr(s("abc")), wantErr: true},
		{n: 10, maxUnav: ptr(s("5")), wantErr: true}, // a string must end in %
		{n: 10, maxSurge: ptr(i(-1)), wantErr: true},
	} {
		surge, unav, err := Budget(tc.n, tc.maxSurge, tc.maxUnav)
		if tc.wantErr != (err != nil) || surge != tc.wantSurge || unav != tc.wantUnav {
			t.Errorf("Budget(%d, %v, %v) = %d, %d, %v; want %d, %d, error %t",
				tc.n, tc.maxSurge, tc.maxUnav, surge, unav, err, tc.wantSurge, tc.wantUnav, tc.wantErr)
		}
	}
}

func TestCanaryReplicas(t *testing.T) {
	for _, tc := range []struct{ n, weight, want int32 }{
		{5, 20, 1}, {5, 30, 2}, {5, 100, 5}, {10, 0, 0}, {10, 1, 1}, {10, 99, 10},
		{3, 50, 2}, {0, 50, 0}, {1, 1, 1}, {10, 150, 10}, {10, -5, 0},
	} {
		if got := CanaryReplicas(tc.n, tc.weight); got != tc.want {
			t.Errorf("CanaryReplicas(%d, %d) = %d, want %d", tc.n, tc.weight, got, tc.want)
		}
	}
}

// stepCase is one call of Step; it is also the state of a simulated rollout.
type stepCase struct {
	n, surge, unav, target int32
	canary                 RS
	stable                 *RS
	others                 []RS
}

func rs(name string, spec, avail int32) RS { return RS{Name: name, Spec: spec, Available: avail} }
func rsp(spec, avail int32) *RS            { r := rs("stable", spec, avail); return &r }

func (c stepCase) step() (int32, int32, []int32) {
	return Step(c.n, c.surge, c.unav, c.target, c.canary, c.stable, c.others)
}

func TestStep(t *testing.T) {
	for _, tc := range []struct {
		name       string
		in         stepCase
		wantCanary int32
		wantStable int32
		wantOthers []int32
	}{
		{"rolling surges one", stepCase{10, 1, 0, 10, rs("c", 0, 0), rsp(10, 10), nil}, 1, 10, nil},
		{"rolling swaps one", stepCase{10, 1, 0, 10, rs("c", 1, 1), rsp(10, 10), nil}, 2, 9, nil},
		{"canary not ready yet", stepCase{10, 1, 0, 10, rs("c", 1, 0), rsp(10, 10), nil}, 1, 10, nil},
		{"unready stable pods go first", stepCase{10, 1, 0, 10, rs("c", 0, 0), rsp(10, 8), nil}, 3, 8, nil},
		{"defaults weight 20", stepCase{5, 2, 1, 1, rs("c", 0, 0), rsp(5, 5), nil}, 1, 4, nil},
		{"abort grows stable first", stepCase{5, 2, 1, 0, rs("c", 3, 3), rsp(2, 2), nil}, 2, 5, nil},
		{"abort finishes", stepCase{5, 2, 1, 0, rs("c", 2, 2), rsp(5, 5), nil}, 0, 5, nil},
		{"others before stable", stepCase{10, 1, 1, 3, rs("c", 0, 0), rsp(8, 8), []RS{rs("o", 2, 2)}}, 2, 8, []int32{1}},
		{"oldest other first", stepCase{6, 0, 1, 6, rs("c", 2, 2), nil, []RS{rs("a", 2, 2), rs("b", 2, 2)}}, 3, 0, []int32{1, 2}},
		{"unready others go at once", stepCase{6, 0, 1, 6, rs("c", 2, 2), nil, []RS{rs("a", 2, 2), rs("b", 2, 0)}}, 4, 0, []int32{2, 0}},
		{"over budget only scales down", stepCase{4, 1, 0, 2, rs("c", 0, 0), rsp(4, 4), []RS{rs("o", 2, 2)}}, 0, 4, []int32{0}},
		{"never below target", stepCase{10, 5, 5, 4, rs("c", 4, 4), rsp(9, 9), nil}, 4, 6, nil},
		{"n=0 scales all down", stepCase{0, 0, 1, 0, rs("c", 2, 2), rsp(3, 1), []RS{rs("o", 1, 1)}}, 0, 0, []int32{0}},
		{"target clamped to n", stepCase{2, 1, 0, 7, rs("c", 0, 0), rsp(2, 2), nil}, 1, 2, nil},
		{"first rollout", stepCase{4, 1, 1, 4, rs("c", 0, 0), nil, nil}, 4, 0, nil},
		{"available above spec counts as spec", stepCase{3, 0, 1, 3, rs("c", 1, 3), rsp(2, 2), nil}, 2, 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, s, o := tc.in.step()
			if c != tc.wantCanary || s != tc.wantStable || !slices.Equal(o, tc.wantOthers) {
				t.Errorf("Step = canary %d stable %d others %v; want %d %d %v", c, s, o, tc.wantCanary, tc.wantStable, tc.wantOthers)
			}
			if err := checkStep(tc.in, c, s, o); err != nil {
				t.Error(err)
			}
		})
	}
}

// checkStep verifies the documented invariants of one Step call.
func checkStep(in stepCase, canary, stable int32, others []int32) error {
	n := int64(max(in.n, 0))
	target := min(int64(max(in.target, 0)), n)
	type move struct {
		name                 string
		from, avail, to, tgt int64
		grows                bool // may the RS be scaled up at all
	}
	clamp := func(r RS, to int32, tgt int64, grows bool) move {
		spec := int64(max(r.Spec, 0))
		return move{r.Name, spec, min(int64(max(r.Available, 0)), spec), int64(to), tgt, grows}
	}
	if len(others) != len(in.others) {
		return fmt.Errorf("%d others in, %d out", len(in.others), len(others))
	}
	var moves []move
	for i, o := range in.others {
		moves = append(moves, clamp(o, others[i], 0, false))
	}
	if in.stable != nil {
		moves = append(moves, clamp(*in.stable, stable, n-target, true))
	} else if stable != 0 {
		return fmt.Errorf("no stable in, stable %d out", stable)
	}
	moves = append(moves, clamp(in.canary, canary, target, true))

	var before, after, avail, lostAvail int64
	changed, unreadyAbove, anyAbove, anyBelow := false, false, false, false
	for _, m := range moves {
		lo, hi := min(m.from, m.tgt), max(m.from, m.tgt)
		if m.to < lo || m.to > hi {
			return fmt.Errorf("%s: %d -> %d, not between it and its target %d", m.name, m.from, m.to, m.tgt)
		}
		before, after, avail = before+m.from, after+m.to, avail+m.avail
		lostAvail += max(0, m.avail-m.to)
		changed = changed || m.to != m.from
		unreadyAbove = unreadyAbove || (m.from > m.tgt && m.from > m.avail)
		anyAbove = anyAbove || m.from > m.tgt
		anyBelow = anyBelow || (m.grows && m.from < m.tgt)
	}
	maxTotal := n + int64(max(in.surge, 0))
	minAvail := n - int64(max(in.unav, 0))
	switch {
	case before <= maxTotal && after > maxTotal:
		return fmt.Errorf("total %d -> %d, above n+surge %d", before, after, maxTotal)
	case before > maxTotal && after > before:
		return fmt.Errorf("over budget total %d grew to %d", before, after)
	case lostAvail > 0 && avail-lostAvail < minAvail:
		return fmt.Errorf("removed %d available pods of %d, below n-unavailable %d", lostAvail, avail, minAvail)
	case changed:
		return nil
	case unreadyAbove:
		return fmt.Errorf("no progress, but an RS above its target has unavailable pods")
	case anyAbove && avail > minAvail:
		return fmt.Errorf("no progress, but %d available > %d allows a scale-down", avail, minAvail)
	case anyBelow && before < maxTotal:
		return fmt.Errorf("no progress, but total %d < %d allows a scale-up", before, maxTotal)
	}
	return nil
}

func FuzzStep(f *testing.F) {
	f.Add(int32(10), int32(1), int32(0), int32(10), int32(0), int32(0), true, int32(10), int32(10), int32(0), int32(0), int32(0), int32(0))
	f.Add(int32(5), int32(2), int32(1), int32(0), int32(3), int32(3), true, int32(2), int32(2), int32(1), int32(1), int32(0), int32(0))
	f.Add(int32(0), int32(0), int32(1), int32(0), int32(2), int32(1), false, int32(0), int32(0), int32(4), int32(2), int32(3), int32(3))
	f.Add(int32(-3), int32(-1), int32(1<<30), int32(-7), int32(1<<31-1), int32(-2), true, int32(-5), int32(1<<31-1), int32(1<<31-1), int32(1<<31-1), int32(5), int32(9))
	f.Fuzz(func(t *testing.T, n, surge, unav, target, cSpec, cAvail int32, hasStable bool, sSpec, sAvail, o1Spec, o1Avail, o2Spec, o2Avail int32) {
		in := stepCase{n, surge, unav, target, rs("canary", cSpec, cAvail), nil,
			[]RS{rs("old1", o1Spec, o1Avail), rs("old2", o2Spec, o2Avail)}}
		if hasStable {
			in.stable = rsp(sSpec, sAvail)
		}
		c, s, o := in.step()
		if err := checkStep(in, c, s, o); err != nil {
			t.Fatalf("%+v: %v", in, err)
		}
		// From any state with a budget that allows moves, a fully ready
		// cluster converges: every round moves at least one pod closer.
		if surge <= 0 && unav <= 0 || !hasStable && min(max(target, 0), max(n, 0)) != max(n, 0) {
			return
		}
		for _, v := range []int32{n, surge, unav, cSpec, sSpec, o1Spec, o2Spec} {
			if v > 300 {
				return
			}
		}
		in.surge, in.unav = max(surge, 0), max(unav, 0)
		if rounds := simulate(t, &in, nil, 0, 2000); rounds < 0 {
			t.Fatalf("%+v: did not converge", in)
		}
	})
}
