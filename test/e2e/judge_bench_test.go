//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/judge"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/prometheus"
)

// BenchmarkJudgeAccuracyPrometheus is BenchmarkJudgeAccuracy
// (internal/analysis/judgement) through the real Prometheus: 40 baseline
// series, 40 equal canaries and 40 canaries 20% slower, 10% Gaussian
// noise, scraped every second; once 18 s of samples are in, the judge
// provider (in the test process, confidence 0.95, effectSize 0.1,
// direction increase) judges each pair. It reports the pass rate of the
// equal canaries and the detection rate of the slower ones, failing only
// when either is below one in two (a broken judge).
func BenchmarkJudgeAccuracyPrometheus(b *testing.B) {
	const reps = 40
	p := testPrometheus(b)
	j := judge.New(prometheus.New(), time.Now)
	for i := 0; i < b.N; i++ {
		ns := fmt.Sprintf("judge-bench-%d-%d", time.Now().UnixNano(), i)
		means := map[string]float64{}
		for r := range reps {
			means[fmt.Sprintf("b%d", r)], means[fmt.Sprintf("e%d", r)], means[fmt.Sprintf("s%d", r)] = 0.1, 0.1, 0.12
		}
		serveLatency(b, p, ns, 0.1, means)
		// the window is full once every series has 18 samples
		eventually(b, time.Minute, "18 s of samples", func() error {
			got, err := p.query(fmt.Sprintf(`min(count_over_time(judge_latency_seconds{namespace=%q}[18s])) >= 17`, ns))
			if err == nil && got == "" {
				err = errors.New("some series have fewer samples")
			}
			return err
		})
		var passed, detected int
		for r := range reps {
			if judgeOnce(b, j, p.URL(), ns, fmt.Sprintf("b%d", r), fmt.Sprintf("e%d", r)) == rampv1.AnalysisPhaseSuccessful {
				passed++
			}
			if judgeOnce(b, j, p.URL(), ns, fmt.Sprintf("b%d", r), fmt.Sprintf("s%d", r)) == rampv1.AnalysisPhaseFailed {
				detected++
			}
		}
		b.ReportMetric(100*float64(passed)/reps, "equal-pass-%")
		b.ReportMetric(100*float64(detected)/reps, "detect+20%-%")
		if 2*passed < reps || 2*detected < reps { // not the goal: a judge that always or never fails is broken
			b.Errorf("equal canaries passed %d/%d, +20%% caught %d/%d: at most one right in two", passed, reps, detected, reps)
		}
	}
}

// judgeOnce judges canary against baseline over the last 18 s.
func judgeOnce(b *testing.B, j *judge.Provider, address, ns, baseline, canary string) rampv1.AnalysisPhase {
	b.Helper()
	m := rampv1.JudgeMetric{Address: address, Baseline: baseline, Canary: canary, Lookback: "18s", Step: "1s",
		Threshold: rampv1.KayentaThreshold{Pass: 90, Marginal: 50},
		Metrics: []rampv1.JudgeQuery{{Name: "latency", Direction: "increase", EffectSize: "0.1",
			Query: `judge_latency_seconds{namespace="` + ns + `", pod_template_hash="{{group}}"}`}}}
	res, err := j.Measure(context.Background(), provider.Request{Metric: rampv1.Metric{Name: "bench", Provider: rampv1.MetricProvider{Judge: &m}}})
	if err != nil {
		b.Fatalf("judge %s vs %s: %v", canary, baseline, err)
	}
	if n, _ := strconv.Atoi(res.Metadata["latency.n-canary"]); n < 15 {
		b.Fatalf("judge %s: only %d canary samples", canary, n)
	}
	return res.Phase
}
