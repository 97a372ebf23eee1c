package stats

import (
	"math"
	"testing"
)

// TestExactCriticalValues checks the exact p-values against the published
// table of critical values of U for a two-tailed test at alpha = 0.05
// (e.g. Zar, Biostatistical Analysis, 5th ed., Appendix Table B.11; the same
// values appear in most statistics textbooks' U tables): U at or below the
// critical value is significant, one more is not.
func TestExactCriticalValues(t *testing.T) {
	for _, c := range []struct{ n1, n2, crit int }{
		{4, 4, 0}, {5, 5, 2}, {6, 6, 5}, {7, 7, 8}, {8, 8, 13}, {9, 9, 17}, {10, 10, 23},
		{11, 11, 30}, {12, 12, 37}, {13, 13, 45}, {14, 14, 55}, {15, 15, 64}, {16, 16, 75},
		{17, 17, 87}, {18, 18, 99}, {19, 19, 113}, {20, 20, 127}, {5, 10, 8},
	} {
		at, above := exactP(c.n1, c.n2, float64(c.crit)), exactP(c.n1, c.n2, float64(c.crit+1))
		if at > 0.05 || above <= 0.05 {
			t.Errorf("n1=%d n2=%d: p(U=%d)=%.4f p(U=%d)=%.4f, want the first <= 0.05 < the second",
				c.n1, c.n2, c.crit, at, c.crit+1, above)
		}
	}
}

// TestExactAgainstBruteForce compares U's distribution from the recurrence
// with one counted by enumerating every assignment of the ranks 1..n1+n2 to
// the first sample, and the p-values derived from each.
func TestExactAgainstBruteForce(t *testing.T) {
	for n1 := 1; n1 <= 7; n1++ {
		for n2 := 1; n2 <= 7; n2++ {
			want := bruteForce(n1, n2)
			got := distribution(n1, n2)
			if len(got) != len(want) {
				t.Fatalf("n1=%d n2=%d: %d values of U, want %d", n1, n2, len(got), len(want))
			}
			var total float64
			for _, c := range want {
				total += c
			}
			for u := range want {
				if got[u] != want[u] {
					t.Fatalf("n1=%d n2=%d: count(U=%d) = %v, want %v", n1, n2, u, got[u], want[u])
				}
				var low, high float64
				for v, c := range want {
					if v <= u {
						low += c
					}
					if v >= u {
						high += c
					}
				}
				p := math.Min(1, 2*math.Min(low, high)/total)
				if d := math.Abs(exactP(n1, n2, float64(u)) - p); d > 1e-12 {
					t.Fatalf("n1=%d n2=%d U=%d: p = %v, brute force %v", n1, n2, u, exactP(n1, n2, float64(u)), p)
				}
			}
		}
	}
}

// bruteForce counts, for each U, the subsets of ranks {1..n1+n2} of size n1
// (the first sample's ranks) whose U = sum(ranks) - n1(n1+1)/2 is U.
func bruteForce(n1, n2 int) []float64 {
	counts := make([]float64, n1*n2+1)
	n := n1 + n2
	for mask := 0; mask < 1<<n; mask++ {
		size, sum := 0, 0
		for r := 0; r < n; r++ {
			if mask&(1<<r) != 0 {
				size++
				sum += r + 1
			}
		}
		if size == n1 {
			counts[sum-n1*(n1+1)/2]++
		}
	}
	return counts
}

// TestMannWhitneyReference compares with values computed independently:
// R's wilcox.test example (Hollander & Wolfe, 1973, p. 69: W = 35, one-sided
// p = 0.1272) and SciPy 1.10.1's scipy.stats.mannwhitneyu(x, y,
// alternative='two-sided', use_continuity=True, method='exact' for the
// exact cases, 'asymptotic' for the others).
func TestMannWhitneyReference(t *testing.T) {
	for _, c := range []struct {
		name  string
		x, y  []float64
		u, p  float64
		exact bool
	}{
		{"Hollander-Wolfe, exact", []float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46},
			[]float64{1.15, 0.88, 0.90, 0.74, 1.21}, 35, 0.2544122544122544, true},
		{"3 v 3 separated, exact", []float64{1, 2, 3}, []float64{4, 5, 6}, 0, 0.1, true},
		{"20 v 20, exact", []float64{0.238, 0.5442, 0.37, 0.6039, 0.6257, 0.0655, 0.0132, 0.8375, 0.2594, 0.2343,
			0.9956, 0.4703, 0.8365, 0.4764, 0.6391, 0.1506, 0.6349, 0.868, 0.5232, 0.7413},
			[]float64{0.9714, 0.364, 1.0582, 0.8911, 0.6013, 0.331, 1.1655, 0.7727, 1.0188, 1.1788,
				1.0141, 1.2211, 0.695, 1.1009, 0.7446, 1.2356, 1.1789, 0.3975, 0.436, 0.517}, 89, 0.002165549140448787, true},
		{"25 v 30 no ties, normal", []float64{9.488, 11.023, 9.548, 9.37, 8.14, 9.573, 12.224, 10.848, 12.074, 10.498,
			10.79, 10.371, 6.668, 11.711, 11.013, 10.998, 6.617, 6.512, 8.221, 9.064, 10.611, 9.908, 11.042, 8.716, 10.617},
			[]float64{11.7881, 9.6781, 14.4351, 12.1131, 13.3941, 9.7591, 9.5211, 10.3121, 10.7871, 12.2641,
				11.4971, 10.1051, 9.0861, 9.9591, 13.4421, 9.3841, 11.4901, 11.8531, 8.0211, 11.0971,
				13.6121, 6.9711, 10.3571, 10.7881, 9.3651, 11.9951, 10.8751, 8.0711, 12.6561, 12.3391},
			256, 0.04517561581884573, false},
		{"8 v 9 ties, normal", []float64{1, 2, 2, 3, 4, 4, 4, 5}, []float64{3, 4, 5, 5, 6, 6, 7, 8, 8}, 8, 0.007453631850691216, false},
		{"30 v 30 heavy ties, normal",
			[]float64{1, 3, 1, 3, 3, 2, 2, 3, 2, 3, 2, 3, 2, 1, 1, 2, 2, 3, 3, 1, 1, 3, 3, 2, 3, 3, 3, 2, 2, 3},
			[]float64{3, 3, 1, 3, 3, 2, 1, 3, 1, 2, 3, 2, 2, 3, 3, 3, 1, 2, 3, 3, 3, 2, 3, 3, 3, 3, 3, 2, 2, 1},
			406, 0.48001298051999586, false},
		{"5 v 6 ties, normal", []float64{1.5, 2.5, 2.5, 3, 7}, []float64{2.5, 4, 5, 6, 6, 9}, 7, 0.16601056437093298, false},
		{"all equal", []float64{2, 2, 2}, []float64{2, 2}, 3, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := MannWhitney(c.x, c.y)
			if err != nil {
				t.Fatal(err)
			}
			if r.U != c.u || r.Exact != c.exact || math.Abs(r.P-c.p) > 1e-9 {
				t.Fatalf("U=%v p=%.12f exact=%v, want U=%v p=%.12f exact=%v", r.U, r.P, r.Exact, c.u, c.p, c.exact)
			}
			if r.N1 != len(c.x) || r.N2 != len(c.y) {
				t.Fatalf("n1=%d n2=%d", r.N1, r.N2)
			}
		})
	}
}

// TestMannWhitneyBadInput: an empty sample or a NaN is an error.
func TestMannWhitneyBadInput(t *testing.T) {
	for _, c := range []struct{ x, y []float64 }{
		{nil, []float64{1}}, {[]float64{1}, nil}, {[]float64{math.NaN()}, []float64{1}},
	} {
		if _, err := MannWhitney(c.x, c.y); err == nil {
			t.Errorf("MannWhitney(%v, %v) returned no error", c.x, c.y)
		}
	}
}

// FuzzMannWhitney: any finite samples give U in [0, n1*n2], p in [0, 1],
// U(x,y) + U(y,x) = n1*n2 and the same p both ways round, without panics.
func FuzzMannWhitney(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7}, uint8(3))
	f.Add([]byte{5, 5, 5, 5, 1, 9}, uint8(2))
	f.Add(make([]byte, 60), uint8(25))
	f.Fuzz(func(t *testing.T, data []byte, split uint8) {
		if len(data) < 2 || len(data) > 200 {
			return
		}
		k := 1 + int(split)%(len(data)-1)
		x, y := floats(data[:k]), floats(data[k:])
		a, err := MannWhitney(x, y)
		if err != nil {
			t.Fatal(err)
		}
		b, err := MannWhitney(y, x)
		if err != nil {
			t.Fatal(err)
		}
		n := float64(len(x) * len(y))
		if a.U < 0 || a.U > n || a.U+b.U != n {
			t.Fatalf("U=%v and %v for n1*n2=%v", a.U, b.U, n)
		}
		if !(a.P >= 0 && a.P <= 1) || math.Abs(a.P-b.P) > 1e-9 {
			t.Fatalf("p=%v one way, %v the other", a.P, b.P)
		}
	})
}

// floats maps bytes to values with many ties (byte/4) and some spread.
func floats(b []byte) []float64 {
	v := make([]float64, len(b))
	for i, c := range b {
		v[i] = float64(c/4) * 0.5
	}
	return v
}
