package judge

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Placeholder is where a query takes the baseline or canary selector.
const Placeholder = "{{group}}"

// Defaults of the optional fields.
const (
	DefaultLookback   = 5 * time.Minute
	DefaultStep       = 15 * time.Second
	DefaultConfidence = 0.95
)

// Directions of a bad change.
const (
	Increase = "increase"
	Decrease = "decrease"
	Either   = "either"
)

// spec is a validated judgement.
type spec struct {
	lookback, step time.Duration
	alpha          float64 // 1 - confidence
	pass, marginal float64
	metrics        []metricSpec
}

// metricSpec is a validated metric of a judgement.
type metricSpec struct {
	name, query, direction string
	effectSize, weight     float64
	critical               bool
}

// parse validates m; errors name the field ("metrics[1].direction").
func parse(m *rampv1.JudgeMetric) (spec, error) {
	s := spec{lookback: DefaultLookback, step: DefaultStep, alpha: 1 - DefaultConfidence}
	var err error
	switch {
	case strings.TrimSpace(m.Baseline) == "":
		return s, errors.New("baseline is not set")
	case strings.TrimSpace(m.Canary) == "":
		return s, errors.New("canary is not set")
	case m.Baseline == m.Canary:
		return s, fmt.Errorf("baseline and canary are both %q: they must select different series", m.Baseline)
	}
	if s.lookback, err = positive("lookback", m.Lookback, DefaultLookback); err != nil {
		return s, err
	}
	if s.step, err = positive("step", m.Step, DefaultStep); err != nil {
		return s, err
	}
	if s.step > s.lookback {
		return s, fmt.Errorf("step %s is longer than lookback %s", s.step, s.lookback)
	}
	if m.Confidence != "" {
		c, err := m.Confidence.Float()
		if err != nil || c <= 0 || c >= 1 {
			return s, fmt.Errorf("confidence: %q must be a number between 0 and 1 (exclusive)", m.Confidence)
		}
		s.alpha = 1 - c
	}
	s.pass, s.marginal = float64(m.Threshold.Pass), float64(m.Threshold.Marginal)
	if s.pass < 0 || s.pass > 100 || s.marginal < 0 || s.marginal > s.pass {
		return s, fmt.Errorf("threshold: need 0 <= marginal (%d) <= pass (%d) <= 100", m.Threshold.Marginal, m.Threshold.Pass)
	}
	if len(m.Metrics) == 0 {
		return s, errors.New("metrics: at least one is needed")
	}
	seen := map[string]bool{}
	for i, q := range m.Metrics {
		ms, err := parseMetric(q)
		if err != nil {
			return s, fmt.Errorf("metrics[%d].%w", i, err)
		}
		if seen[ms.name] {
			return s, fmt.Errorf("metrics[%d].name: %q is used twice", i, ms.name)
		}
		seen[ms.name] = true
		s.metrics = append(s.metrics, ms)
	}
	return s, nil
}

func parseMetric(q rampv1.JudgeQuery) (metricSpec, error) {
	ms := metricSpec{name: q.Name, query: q.Query, direction: q.Direction, weight: 1, critical: q.Critical}
	switch {
	case strings.TrimSpace(q.Name) == "" || strings.ContainsAny(q.Name, " ."):
		return ms, fmt.Errorf("name: %q must be set, without blanks or dots (it prefixes metadata keys)", q.Name)
	case !strings.Contains(q.Query, Placeholder):
		return ms, fmt.Errorf("query: must hold %s where the baseline or canary selector goes", Placeholder)
	}
	switch q.Direction {
	case "":
		ms.direction = Either
	case Increase, Decrease, Either:
	default:
		return ms, fmt.Errorf("direction: %q must be increase, decrease or either", q.Direction)
	}
	if q.EffectSize != "" {
		e, err := q.EffectSize.Float()
		if err != nil || e < 0 || math.IsInf(e, 0) {
			return ms, fmt.Errorf("effectSize: %q must be a number >= 0", q.EffectSize)
		}
		ms.effectSize = e
	}
	if q.Weight != nil {
		if *q.Weight < 0 {
			return ms, fmt.Errorf("weight: %d must not be negative", *q.Weight)
		}
		ms.weight = float64(*q.Weight)
	}
	return ms, nil
}

// positive parses an optional duration field that must be positive.
func positive(field string, d rampv1.DurationString, def time.Duration) (time.Duration, error) {
	if d == "" {
		return def, nil
	}
	v, err := d.Duration()
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("%s: %q must be a positive duration", field, d)
	}
	return v, nil
}
