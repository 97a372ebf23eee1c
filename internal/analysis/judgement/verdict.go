package judgement

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/stats"
)

// Verdict is a metric's classification.
type Verdict string

// Verdicts: Pass (no meaningful change, or one in the harmless direction),
// High or Low (a significant change at least effectSize large, in a bad
// direction), NoData (a group has no finite sample).
const (
	Pass   Verdict = "Pass"
	High   Verdict = "High"
	Low    Verdict = "Low"
	NoData Verdict = "NoData"
)

// Outcome is the judgement of one metric.
type Outcome struct {
	Metric  Metric
	Verdict Verdict
	Test    stats.Result
	Effect  float64 // Hodges-Lehmann shift of the canary over |baseline median|
}

// Classify judges one metric from its baseline and canary samples; NaN
// and infinite samples are dropped (Prometheus writes NaN for 0/0).
func Classify(m Metric, baseline, canary []float64, alpha float64) Outcome {
	baseline, canary = finite(baseline), finite(canary)
	o := Outcome{Metric: m, Verdict: NoData}
	if len(baseline) == 0 || len(canary) == 0 {
		o.Test.N1, o.Test.N2 = len(baseline), len(canary)
		return o
	}
	o.Test, _ = stats.MannWhitney(canary, baseline) // both non-empty and NaN-free: no error
	o.Effect = stats.RelativeShift(stats.HodgesLehmann(baseline, canary), stats.Median(baseline))
	o.Verdict = Pass
	if o.Test.P >= alpha || math.Abs(o.Effect) <= m.EffectSize || o.Effect == 0 {
		return o
	}
	switch {
	case o.Effect > 0 && m.Direction != Decrease:
		o.Verdict = High
	case o.Effect < 0 && m.Direction != Increase:
		o.Verdict = Low
	}
	return o
}

func finite(v []float64) []float64 {
	out := make([]float64, 0, len(v))
	for _, f := range v {
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			out = append(out, f)
		}
	}
	return out
}

// Judgement is the overall result of a measurement.
type Judgement struct {
	Score    float64
	Phase    rampv1.AnalysisPhase
	Critical string // the failed critical metric, if any
}

// Score weighs the outcomes, as Kayenta's judge does: the weight of the
// passing metrics over the weight of the metrics with data, as a
// percentage (100 when that weight is 0). A critical metric that is not
// Pass makes the score 0. The phase is Successful at or above pass,
// Inconclusive at or above marginal, Failed below; ok is false when no
// metric has data (the measurement is an Error).
func Score(s Spec, outcomes []Outcome) (j Judgement, ok bool) {
	var passed, total float64
	for _, o := range outcomes {
		if o.Verdict == NoData {
			continue
		}
		ok = true
		total += o.Metric.Weight
		if o.Verdict == Pass {
			passed += o.Metric.Weight
		} else if o.Metric.Critical && j.Critical == "" {
			j.Critical = o.Metric.Name
		}
	}
	if !ok {
		return j, false
	}
	j.Score = 100
	if total > 0 {
		j.Score = math.Round(passed/total*10000) / 100 // two decimals
	}
	if j.Critical != "" {
		j.Score = 0
	}
	switch {
	case j.Score >= s.Pass:
		j.Phase = rampv1.AnalysisPhaseSuccessful
	case j.Score >= s.Marginal:
		j.Phase = rampv1.AnalysisPhaseInconclusive
	default:
		j.Phase = rampv1.AnalysisPhaseFailed
	}
	return j, true
}

// Metadata keys of a measurement: ScoreKey, and for each metric
// "<name>.<key>" with key one of the Key* constants. They are stable: the
// CLI, dashboards and users read them.
const (
	ScoreKey     = "score"
	KeyVerdict   = "verdict"     // Pass, High, Low or NoData
	KeyU         = "u"           // U of the canary against the baseline
	KeyPValue    = "p-value"     // two-sided
	KeyTest      = "test"        // exact or normal
	KeyEffect    = "effect-size" // relative Hodges-Lehmann shift, e.g. 0.2 for +20%
	KeyNBaseline = "n-baseline"  // finite baseline samples
	KeyNCanary   = "n-canary"    // finite canary samples
)

// Metadata records the score and each metric's statistics.
func Metadata(j Judgement, outcomes []Outcome) map[string]string {
	md := map[string]string{ScoreKey: num(j.Score)}
	for _, o := range outcomes {
		p := o.Metric.Name + "."
		md[p+KeyVerdict] = string(o.Verdict)
		md[p+KeyNBaseline] = strconv.Itoa(o.Test.N2)
		md[p+KeyNCanary] = strconv.Itoa(o.Test.N1)
		if o.Verdict == NoData {
			continue
		}
		md[p+KeyU] = num(o.Test.U)
		md[p+KeyPValue] = strconv.FormatFloat(o.Test.P, 'g', 4, 64)
		md[p+KeyEffect] = strconv.FormatFloat(o.Effect, 'g', 4, 64)
		md[p+KeyTest] = "normal"
		if o.Test.Exact {
			md[p+KeyTest] = "exact"
		}
	}
	return md
}

// Message summarises the judgement for `ramp get`: the score and each
// metric's verdict, with p-value and effect when there was data.
func Message(j Judgement, outcomes []Outcome) string {
	parts := make([]string, 0, len(outcomes))
	for _, o := range outcomes {
		if o.Verdict == NoData {
			parts = append(parts, fmt.Sprintf("%s NoData (baseline %d, canary %d samples)", o.Metric.Name, o.Test.N2, o.Test.N1))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s (p=%.3g, effect %+.1f%%)", o.Metric.Name, o.Verdict, o.Test.P, 100*o.Effect))
	}
	head := "score " + num(j.Score)
	if j.Critical != "" {
		head += ", critical metric " + j.Critical + " failed"
	}
	return head + ": " + strings.Join(parts, "; ")
}

// Display is the score as the measurement's value ("66.67").
func (j Judgement) Display() string { return num(j.Score) }

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
