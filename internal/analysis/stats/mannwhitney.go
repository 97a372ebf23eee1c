package stats

import (
	"errors"
	"math"
	"sort"
)

// ExactLimit is the largest sample size (of each sample) for which the
// p-value is computed exactly, from the distribution of U, when the samples
// have no ties. Above it, or with ties, the normal approximation is used.
const ExactLimit = 20

// Result is a two-sided Mann-Whitney U test of sample x against sample y.
type Result struct {
	// U counts the pairs (x[i], y[j]) with x[i] > y[j], a tie counting one
	// half: N1*N2/2 when neither sample tends to be larger, N1*N2 when every
	// x exceeds every y.
	U float64
	// P is the two-sided p-value, in [0, 1].
	P float64
	// Exact reports whether P comes from U's exact distribution (small
	// samples, no ties) rather than the normal approximation.
	Exact bool
	// N1 and N2 are the sizes of x and y.
	N1, N2 int
}

// MannWhitney tests whether x tends to be larger or smaller than y. Both
// samples must be non-empty and hold no NaN (infinities rank as usual).
func MannWhitney(x, y []float64) (Result, error) {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		return Result{}, errors.New("mann-whitney: a sample is empty")
	}
	all := make([]ranked, 0, n1+n2)
	for _, v := range x {
		all = append(all, ranked{v: v, first: true})
	}
	for _, v := range y {
		all = append(all, ranked{v: v})
	}
	for _, r := range all {
		if math.IsNaN(r.v) {
			return Result{}, errors.New("mann-whitney: a sample holds NaN")
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	rankSum, ties := rank(all)
	u := rankSum - float64(n1)*float64(n1+1)/2
	res := Result{U: u, N1: n1, N2: n2}
	if ties == 0 && n1 <= ExactLimit && n2 <= ExactLimit {
		res.P, res.Exact = exactP(n1, n2, u), true
	} else {
		res.P = normalP(n1, n2, u, ties)
	}
	return res, nil
}

// ranked is a value of either sample.
type ranked struct {
	v     float64
	first bool // from x
}

// rank returns the sum of x's (mid-)ranks in sorted all, and the tie term
// sum(t^3 - t) over groups of t equal values.
func rank(all []ranked) (rankSumX, ties float64) {
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		mid := float64(i+j+1) / 2 // ranks i+1..j, averaged
		for k := i; k < j; k++ {
			if all[k].first {
				rankSumX += mid
			}
		}
		if t := float64(j - i); t > 1 {
			ties += t*t*t - t
		}
		i = j
	}
	return rankSumX, ties
}

// normalP is the two-sided p-value of u by the normal approximation with a
// continuity correction; the variance is corrected for ties (sum of t^3-t).
func normalP(n1, n2 int, u, ties float64) float64 {
	a, b := float64(n1), float64(n2)
	n := a + b
	mean := a * b / 2
	variance := a * b / 12 * ((n + 1) - ties/(n*(n-1)))
	if variance <= 0 || math.IsNaN(variance) { // every value equal
		return 1
	}
	d := math.Abs(u-mean) - 0.5
	if d <= 0 {
		return 1
	}
	return clamp01(math.Erfc(d / math.Sqrt(variance) / math.Sqrt2))
}

func clamp01(p float64) float64 { return math.Max(0, math.Min(1, p)) }
