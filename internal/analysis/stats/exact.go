package stats

import "math"

// exactP is the two-sided p-value of u (an integer, as there are no ties)
// for samples of n1 and n2 values: twice the smaller tail of U's
// distribution under the null hypothesis, capped at 1.
func exactP(n1, n2 int, u float64) float64 {
	counts := distribution(n1, n2)
	k := int(math.Round(u))
	var total, low, high float64
	for v, c := range counts {
		total += c
		if v <= k {
			low += c
		}
		if v >= k {
			high += c
		}
	}
	return clamp01(2 * math.Min(low, high) / total)
}

// distribution returns, for each u in 0..n1*n2, the number of orderings of
// n1 x-values and n2 y-values (no ties) whose U is u. It follows the
// recurrence on the largest value: it is an x (which then exceeds all n2
// y-values, adding n2 to U) or a y (adding nothing):
//
//	f(n1, n2, u) = f(n1-1, n2, u-n2) + f(n1, n2-1, u)
//
// with f(0, n, u) = f(n, 0, u) = 1 if u == 0, else 0. Counts are float64:
// they are at most C(2*ExactLimit, ExactLimit) ~ 1.4e11, exact in a float64.
func distribution(n1, n2 int) []float64 {
	// prev[b] is f(a-1, b, .) and cur[b] is f(a, b, .), for b in 0..n2.
	prev := make([][]float64, n2+1)
	for b := range prev {
		prev[b] = []float64{1} // f(0, b, .)
	}
	for a := 1; a <= n1; a++ {
		cur := make([][]float64, n2+1)
		cur[0] = []float64{1} // f(a, 0, .)
		for b := 1; b <= n2; b++ {
			f := make([]float64, a*b+1)
			for u, c := range prev[b] { // largest is an x: U grows by b
				f[u+b] += c
			}
			for u, c := range cur[b-1] { // largest is a y
				f[u] += c
			}
			cur[b] = f
		}
		prev = cur
	}
	return prev[n2]
}
