// Package judge is Ramp's built-in canary judge (a Ramp extension: upstream
// needs an external Kayenta service for this). A judge metric names PromQL
// queries holding {{group}}; each is run as a range query over the lookback
// window once with the baseline's selector and once with the canary's, all
// series' points pooled into one sample per group. Package judgement
// decides: a two-sided Mann-Whitney U test and the Hodges-Lehmann shift
// relative to the baseline's median classify each metric (High or Low when
// the change is significant at the configured confidence, larger than
// effectSize and in a bad direction, else Pass; NoData when a group has no
// sample), and the weighted share of passing metrics is the score that the
// threshold turns into the measurement's phase, so the metric's conditions
// are not used. Metadata keys are judgement.ScoreKey and
// "<metric>.<judgement.Key*>".
//
// Queries go through the prometheus provider's request and decoding code
// (the controller's HTTP policy, size limits and timeouts apply). The
// package never logs: queries and headers may carry secrets.
package judge

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/judgement"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/prometheus"
)

// Provider judges canaries. Create it with New; it is safe for concurrent use.
type Provider struct {
	prom provider.Provider
	now  func() time.Time
}

var _ provider.Provider = (*Provider)(nil)

// New returns a Provider that queries through prom (a prometheus provider)
// and reads the end of the window from now.
func New(prom *prometheus.Provider, now func() time.Time) *Provider {
	return &Provider{prom: prom, now: now}
}

// Measure runs every query for the baseline and the canary, judges each
// metric and returns the score (Value a float64, Display the score) with
// the phase decided, the per-metric statistics in Metadata and a summary
// in Message. A bad spec, a failed query, or no data for any metric is an
// error.
func (p *Provider) Measure(ctx context.Context, req provider.Request) (provider.Result, error) {
	m := req.Metric.Provider.Judge
	if m == nil {
		return provider.Result{}, errors.New("judge: the metric has no judge provider")
	}
	s, err := judgement.Parse(m)
	if err != nil {
		return provider.Result{}, fmt.Errorf("judge: %w", err)
	}
	end := p.now()
	start := end.Add(-s.Lookback)
	outcomes := make([]judgement.Outcome, 0, len(s.Metrics))
	for _, ms := range s.Metrics {
		baseline, err := p.samples(ctx, req, m, ms, m.Baseline, start, end, s.Step)
		if err != nil {
			return provider.Result{}, fmt.Errorf("judge: metric %q, baseline: %w", ms.Name, err)
		}
		canary, err := p.samples(ctx, req, m, ms, m.Canary, start, end, s.Step)
		if err != nil {
			return provider.Result{}, fmt.Errorf("judge: metric %q, canary: %w", ms.Name, err)
		}
		outcomes = append(outcomes, judgement.Classify(ms, baseline, canary, s.Alpha))
	}
	j, ok := judgement.Score(s, outcomes)
	if !ok {
		return provider.Result{}, errors.New("judge: no data: " + strings.TrimPrefix(judgement.Message(j, outcomes), "score 0: "))
	}
	return provider.Result{
		Value:    j.Score,
		Display:  j.Display(),
		Phase:    j.Phase,
		Message:  judgement.Message(j, outcomes),
		Metadata: judgement.Metadata(j, outcomes),
	}, nil
}

// samples runs one metric's query for one group as a range query over
// [start, end] at step through the prometheus provider and returns every
// point of every series.
func (p *Provider) samples(ctx context.Context, req provider.Request, m *rampv1.JudgeMetric, ms judgement.Metric, group string, start, end time.Time, step time.Duration) ([]float64, error) {
	q := req
	q.InFlight, q.Terminate = nil, false
	q.Metric = rampv1.Metric{Name: req.Metric.Name, Provider: rampv1.MetricProvider{Prometheus: &rampv1.PrometheusMetric{
		Address:  m.Address,
		Query:    strings.ReplaceAll(ms.Query, judgement.Placeholder, group),
		Timeout:  m.Timeout,
		Insecure: m.Insecure,
		Headers:  m.Headers,
		RangeQuery: &rampv1.PrometheusRangeQueryArgs{
			Start: start.UTC().Format(time.RFC3339Nano),
			End:   end.UTC().Format(time.RFC3339Nano),
			Step:  stepText(step),
		},
	}}}
	res, err := p.prom.Measure(ctx, q)
	if err != nil {
		return nil, err
	}
	v, ok := res.Value.([]float64)
	if !ok {
		return nil, fmt.Errorf("the query gave a %T, not a series", res.Value)
	}
	return v, nil
}

// stepText is the step as Prometheus reads it: a number of seconds, which
// it accepts with a fraction ("0.5") or large ("1000000"), where a duration
// with a unit must be whole ("1.5s" is refused) and %g would write 1e+06.
func stepText(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}
