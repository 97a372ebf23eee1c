package judgement

import (
	"math"
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/stats"
)

// TestClassify: significance, the effect-size bound and the direction make
// the verdict; NaN and infinite samples are dropped; a zero baseline makes
// any change infinitely large.
func TestClassify(t *testing.T) {
	base := []float64{10, 11, 9, 10.5, 9.5, 10.2, 9.8, 10.1}
	up := []float64{13, 14, 12, 13.5, 12.5, 13.2, 12.8, 13.1} // +30%, separated: p = 2/C(16,8)
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		name           string
		m              Metric
		baseline, can  []float64
		alpha          float64
		want           Verdict
		effectPositive bool
	}{
		{"increase is bad: High", Metric{Direction: Increase}, base, up, 0.05, High, true},
		{"decrease is bad: an increase passes", Metric{Direction: Decrease}, base, up, 0.05, Pass, true},
		{"either: Low", Metric{Direction: Either}, up, base, 0.05, Low, false},
		{"below the effect size", Metric{Direction: Either, EffectSize: 0.5}, base, up, 0.05, Pass, true},
		{"not significant at alpha 1e-6", Metric{Direction: Either}, base, up, 1e-6, Pass, true},
		{"NaN and Inf dropped", Metric{Direction: Either}, append([]float64{nan, inf}, base...), append([]float64{nan}, up...), 0.05, High, true},
		{"only NaN: NoData", Metric{Direction: Either}, []float64{nan}, up, 0.05, NoData, false},
		{"empty: NoData", Metric{Direction: Either}, base, nil, 0.05, NoData, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := Classify(c.m, c.baseline, c.can, c.alpha)
			if o.Verdict != c.want || (o.Effect > 0) != c.effectPositive {
				t.Fatalf("verdict %s effect %v p %v, want %s (effect positive %v)", o.Verdict, o.Effect, o.Test.P, c.want, c.effectPositive)
			}
		})
	}
	zero := Classify(Metric{Direction: Increase}, []float64{0, 0, 0, 0, 0, 0}, []float64{1, 2, 1, 3, 2, 1}, 0.05)
	if !math.IsInf(zero.Effect, 1) || zero.Verdict != High {
		t.Fatalf("from a zero baseline: effect %v verdict %s, want +Inf High", zero.Effect, zero.Verdict)
	}
}

// TestScore: weighted pass percentage, NoData left out, a critical failure
// scoring 0, and the thresholds' boundaries (at pass is Successful, at
// marginal Inconclusive).
func TestScore(t *testing.T) {
	s := Spec{Pass: 75, Marginal: 50}
	o := func(v Verdict, weight float64, critical bool) Outcome {
		return Outcome{Metric: Metric{Name: string(v), Weight: weight, Critical: critical}, Verdict: v}
	}
	for _, c := range []struct {
		name     string
		outcomes []Outcome
		score    float64
		phase    rampv1.AnalysisPhase
		ok       bool
	}{
		{"all pass", []Outcome{o(Pass, 1, false), o(Pass, 2, false)}, 100, rampv1.AnalysisPhaseSuccessful, true},
		{"3 of 4 at pass", []Outcome{o(Pass, 3, false), o(High, 1, false)}, 75, rampv1.AnalysisPhaseSuccessful, true},
		{"half at marginal", []Outcome{o(Pass, 1, false), o(Low, 1, false)}, 50, rampv1.AnalysisPhaseInconclusive, true},
		{"one third", []Outcome{o(Pass, 1, false), o(High, 2, false)}, 33.33, rampv1.AnalysisPhaseFailed, true},
		{"NoData left out", []Outcome{o(Pass, 1, false), o(NoData, 9, false)}, 100, rampv1.AnalysisPhaseSuccessful, true},
		{"critical", []Outcome{o(Pass, 99, false), o(High, 1, true)}, 0, rampv1.AnalysisPhaseFailed, true},
		{"critical passing", []Outcome{o(Pass, 1, true), o(High, 1, false)}, 50, rampv1.AnalysisPhaseInconclusive, true},
		{"zero weights", []Outcome{o(High, 0, false)}, 100, rampv1.AnalysisPhaseSuccessful, true},
		{"no data at all", []Outcome{o(NoData, 1, true)}, 0, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			j, ok := Score(s, c.outcomes)
			if ok != c.ok || j.Score != c.score || j.Phase != c.phase {
				t.Fatalf("score %v phase %q ok %v, want %v %q %v", j.Score, j.Phase, ok, c.score, c.phase, c.ok)
			}
		})
	}
}

// TestMetadataKeys pins the keys and formats dashboards read.
func TestMetadataKeys(t *testing.T) {
	j := Judgement{Score: 66.67}
	md := Metadata(j, []Outcome{
		{Metric: Metric{Name: "lat"}, Verdict: High, Effect: 0.2, Test: stats.Result{U: 380.5, P: 0.000123456, N1: 20, N2: 19}},
		{Metric: Metric{Name: "err"}, Verdict: NoData, Test: stats.Result{N1: 0, N2: 3}},
	})
	want := map[string]string{"score": "66.67", "lat.verdict": "High", "lat.u": "380.5", "lat.p-value": "0.0001235",
		"lat.test": "normal", "lat.effect-size": "0.2", "lat.n-baseline": "19", "lat.n-canary": "20",
		"err.verdict": "NoData", "err.n-baseline": "3", "err.n-canary": "0"}
	if len(md) != len(want) {
		t.Fatalf("metadata %v, want %v", md, want)
	}
	for k, v := range want {
		if md[k] != v {
			t.Errorf("%s = %q, want %q", k, md[k], v)
		}
	}
}
