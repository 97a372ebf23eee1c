package judgement

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
	// MaxPoints bounds lookback/step, the points of each series a range
	// query returns: Prometheus refuses more than 11,000 itself, so a
	// larger ratio is refused here with the fields to change.
	MaxPoints = 11000
)

// Directions of a bad change.
const (
	Increase = "increase"
	Decrease = "decrease"
	Either   = "either"
)

// Spec is a validated judge metric: the optional fields defaulted,
// confidence turned into the test's alpha, the threshold as scores.
type Spec struct {
	Lookback, Step time.Duration
	Alpha          float64 // 1 - confidence
	Pass, Marginal float64
	Metrics        []Metric
}

// Metric is a validated metric of a judgement.
type Metric struct {
	Name, Query, Direction string
	EffectSize, Weight     float64
	Critical               bool
}

// Parse validates m; every error starts with the field it is about
// ("metrics[1].direction: ...").
// Argument placeholders are left as they are (lint checks templates).
func Parse(m *rampv1.JudgeMetric) (Spec, error) {
	s := Spec{Lookback: DefaultLookback, Step: DefaultStep, Alpha: 1 - DefaultConfidence}
	var err error
	switch {
	case strings.TrimSpace(m.Address) == "":
		return s, errors.New("address: not set")
	case strings.TrimSpace(m.Baseline) == "":
		return s, errors.New("baseline: not set")
	case strings.TrimSpace(m.Canary) == "":
		return s, errors.New("canary: not set")
	case m.Baseline == m.Canary:
		return s, fmt.Errorf("canary: %q is also the baseline: they must select different series", m.Canary)
	}
	if s.Lookback, err = positive("lookback", m.Lookback, DefaultLookback); err != nil {
		return s, err
	}
	if s.Step, err = positive("step", m.Step, DefaultStep); err != nil {
		return s, err
	}
	if s.Step > s.Lookback {
		return s, fmt.Errorf("step: %s is longer than lookback %s", s.Step, s.Lookback)
	}
	if n := s.Lookback / s.Step; n > MaxPoints {
		return s, fmt.Errorf("step: %s over lookback %s gives %d points per series, more than %d: lengthen step or shorten lookback", s.Step, s.Lookback, n, MaxPoints)
	}
	if m.Confidence != "" {
		c, err := m.Confidence.Float()
		if err != nil || c <= 0 || c >= 1 {
			return s, fmt.Errorf("confidence: %q must be a number between 0 and 1 (exclusive)", m.Confidence)
		}
		s.Alpha = 1 - c
	}
	s.Pass, s.Marginal = float64(m.Threshold.Pass), float64(m.Threshold.Marginal)
	if s.Pass < 0 || s.Pass > 100 || s.Marginal < 0 || s.Marginal > s.Pass {
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
		if seen[ms.Name] {
			return s, fmt.Errorf("metrics[%d].name: %q is used twice", i, ms.Name)
		}
		seen[ms.Name] = true
		s.Metrics = append(s.Metrics, ms)
	}
	return s, nil
}

func parseMetric(q rampv1.JudgeQuery) (Metric, error) {
	ms := Metric{Name: q.Name, Query: q.Query, Direction: q.Direction, Weight: 1, Critical: q.Critical}
	switch {
	case strings.TrimSpace(q.Name) == "" || strings.ContainsAny(q.Name, " ."):
		return ms, fmt.Errorf("name: %q must be set, without blanks or dots (it prefixes metadata keys)", q.Name)
	case !strings.Contains(q.Query, Placeholder):
		return ms, fmt.Errorf("query: must hold %s where the baseline or canary selector goes", Placeholder)
	}
	switch q.Direction {
	case "":
		ms.Direction = Either
	case Increase, Decrease, Either:
	default:
		return ms, fmt.Errorf("direction: %q must be increase, decrease or either", q.Direction)
	}
	if q.EffectSize != "" {
		e, err := q.EffectSize.Float()
		if err != nil || e < 0 || math.IsInf(e, 0) {
			return ms, fmt.Errorf("effectSize: %q must be a number >= 0", q.EffectSize)
		}
		ms.EffectSize = e
	}
	if q.Weight != nil {
		if *q.Weight < 0 {
			return ms, fmt.Errorf("weight: %d must not be negative", *q.Weight)
		}
		ms.Weight = float64(*q.Weight)
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
