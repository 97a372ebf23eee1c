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
// more than a million pairs). Both samples must be non-empty. The
// differences are taken of halves and doubled at the end (exact for
// normal numbers), so that finite samples never give NaN: a shift beyond
// float64's range is an infinity of its sign.
func HodgesLehmann(x, y []float64) float64 {
	if len(x)*len(y) > maxPairs {
		return 2 * (Median(y)/2 - Median(x)/2)
	}
	d := make([]float64, 0, len(x)*len(y))
	for _, a := range x {
		for _, b := range y {
			d = append(d, b/2-a/2)
		}
	}
	return 2 * Median(d)
}

// Median of v (NaN for an empty v); v is not modified. The middle two of
// an even count are averaged by halves, so that two large values do not
// overflow to an infinity.
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
	return s[m-1]/2 + s[m]/2
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
