package judge

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

// outcome is the judgement of one metric.
type outcome struct {
	metric  metricSpec
	verdict Verdict
	test    stats.Result
	effect  float64 // Hodges-Lehmann shift of the canary over |baseline median|
}

// classify judges one metric from its baseline and canary samples; NaN
// and infinite samples are dropped (Prometheus writes NaN for 0/0).
func classify(m metricSpec, baseline, canary []float64, alpha float64) outcome {
	baseline, canary = finite(baseline), finite(canary)
	o := outcome{metric: m, verdict: NoData}
	if len(baseline) == 0 || len(canary) == 0 {
		o.test.N1, o.test.N2 = len(baseline), len(canary)
		return o
	}
	o.test, _ = stats.MannWhitney(canary, baseline) // both non-empty and NaN-free: no error
	o.effect = stats.RelativeShift(stats.HodgesLehmann(baseline, canary), stats.Median(baseline))
	o.verdict = Pass
	if o.test.P >= alpha || math.Abs(o.effect) <= m.effectSize || o.effect == 0 {
		return o
	}
	switch {
	case o.effect > 0 && m.direction != Decrease:
		o.verdict = High
	case o.effect < 0 && m.direction != Increase:
		o.verdict = Low
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

// judgement is the overall result of a measurement.
type judgement struct {
	score    float64
	phase    rampv1.AnalysisPhase
	critical string // the failed critical metric, if any
}

// score weighs the outcomes, as Kayenta's judge does: the weight of the
// passing metrics over the weight of the metrics with data, as a
// percentage (100 when that weight is 0). A critical metric that is not
// Pass makes the score 0. The phase is Successful at or above pass,
// Inconclusive at or above marginal, Failed below; ok is false when no
// metric has data (the measurement is an Error).
func score(s spec, outcomes []outcome) (j judgement, ok bool) {
	var passed, total float64
	for _, o := range outcomes {
		if o.verdict == NoData {
			continue
		}
		ok = true
		total += o.metric.weight
		if o.verdict == Pass {
			passed += o.metric.weight
		} else if o.metric.critical && j.critical == "" {
			j.critical = o.metric.name
		}
	}
	if !ok {
		return j, false
	}
	j.score = 100
	if total > 0 {
		j.score = math.Round(passed/total*10000) / 100 // two decimals
	}
	if j.critical != "" {
		j.score = 0
	}
	switch {
	case j.score >= s.pass:
		j.phase = rampv1.AnalysisPhaseSuccessful
	case j.score >= s.marginal:
		j.phase = rampv1.AnalysisPhaseInconclusive
	default:
		j.phase = rampv1.AnalysisPhaseFailed
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

// metadata records the score and each metric's statistics.
func metadata(j judgement, outcomes []outcome) map[string]string {
	md := map[string]string{ScoreKey: num(j.score)}
	for _, o := range outcomes {
		p := o.metric.name + "."
		md[p+KeyVerdict] = string(o.verdict)
		md[p+KeyNBaseline] = strconv.Itoa(o.test.N2)
		md[p+KeyNCanary] = strconv.Itoa(o.test.N1)
		if o.verdict == NoData {
			continue
		}
		md[p+KeyU] = num(o.test.U)
		md[p+KeyPValue] = strconv.FormatFloat(o.test.P, 'g', 4, 64)
		md[p+KeyEffect] = strconv.FormatFloat(o.effect, 'g', 4, 64)
		md[p+KeyTest] = "normal"
		if o.test.Exact {
			md[p+KeyTest] = "exact"
		}
	}
	return md
}

// message summarises the judgement for `ramp get`: the score and each
// metric's verdict, with p-value and effect when there was data.
func message(j judgement, outcomes []outcome) string {
	parts := make([]string, 0, len(outcomes))
	for _, o := range outcomes {
		if o.verdict == NoData {
			parts = append(parts, fmt.Sprintf("%s NoData (baseline %d, canary %d samples)", o.metric.name, o.test.N2, o.test.N1))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s (p=%.3g, effect %+.1f%%)", o.metric.name, o.verdict, o.test.P, 100*o.effect))
	}
	head := "score " + num(j.score)
	if j.critical != "" {
		head += ", critical metric " + j.critical + " failed"
	}
	return head + ": " + strings.Join(parts, "; ")
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
