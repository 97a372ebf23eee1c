package stats

import (
	"math"
	"sort"
)

// maxPairs bounds the pairwise differences HodgesLehmann sorts; above it the
// shift is the difference of the medians.
const maxPairs = 1 << 20

// HodgesLehmann estimates how much y is shifted from x: the median of all
// differences y[j] - x[i] (the difference of the medians when there are
// more than a million pairs). Both samples must be non-empty.
func HodgesLehmann(x, y []float64) float64 {
	if len(x)*len(y) > maxPairs {
		return Median(y) - Median(x)
	}
	d := make([]float64, 0, len(x)*len(y))
	for _, a := range x {
		for _, b := range y {
			d = append(d, b-a)
		}
	}
	return Median(d)
}

// Median of v (NaN for an empty v); v is not modified.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// RelativeShift is shift over |base| (the baseline's median): the relative
// change. A zero base gives 0 for a zero shift and ±Inf otherwise (any
// change from nothing is unboundedly large).
func RelativeShift(shift, base float64) float64 {
	switch {
	case shift == 0:
		return 0
	case base == 0:
		return math.Copysign(math.Inf(1), shift)
	}
	return shift / math.Abs(base)
}
