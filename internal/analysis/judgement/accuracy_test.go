package judgement

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkJudgeAccuracy measures how often the judge's statistics get it
// right on 40 seeded repetitions of 20 baseline and 20 canary samples of a
// latency around 100 with 10% Gaussian noise, at confidence 0.95: the pass
// rate when the canary is equal (goal >= 95%) and the detection rate when
// it is 20% higher, with an effect-size bound of 0.1 and with none (the
// bare test, whose false-alarm rate is alpha by construction); the same
// over 1,000 repetitions gives the rates more precisely. It reports the
// rates as metrics; it is a figure, not a timed test.
func BenchmarkJudgeAccuracy(b *testing.B) {
	for _, reps := range []int{40, 1000} {
		for _, effect := range []float64{0.1, 0} {
			b.Run(fmt.Sprintf("reps=%d/effectSize=%g", reps, effect), func(b *testing.B) { accuracy(b, reps, effect) })
		}
	}
}

func accuracy(b *testing.B, reps int, effect float64) {
	const n = 20
	{
		m := Metric{Name: "latency", Direction: Increase, EffectSize: effect, Weight: 1}
		var equalPass, detected int
		for range b.N {
			rng := rand.New(rand.NewPCG(2026, 21))
			equalPass, detected = 0, 0
			for range reps {
				base := noisy(rng, n, 100)
				if Classify(m, base, noisy(rng, n, 100), 0.05).Verdict == Pass {
					equalPass++
				}
				if Classify(m, base, noisy(rng, n, 120), 0.05).Verdict == High {
					detected++
				}
			}
		}
		b.ReportMetric(100*float64(equalPass)/float64(reps), "equal-pass-%")
		b.ReportMetric(100*float64(detected)/float64(reps), "detect+20%-%")
		if 2*equalPass < reps || 2*detected < reps { // not the goal: a judge that always or never fails is broken
			b.Errorf("equal canaries passed %d/%d, +20%% caught %d/%d: at most one right in two", equalPass, reps, detected, reps)
		}
	}
}

// noisy is n samples of mean with 10% Gaussian noise.
func noisy(rng *rand.Rand, n int, mean float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = mean * (1 + 0.1*rng.NormFloat64())
	}
	return v
}
