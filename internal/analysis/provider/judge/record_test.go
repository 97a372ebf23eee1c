package judge

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/judgement"
)

// TestMeasureRequests: each metric is one query_range per group over
// [now-lookback, now] at the step, with {{group}} replaced by the group's
// selector and the metric's headers sent.
func TestMeasureRequests(t *testing.T) {
	f, addr := start(t, map[string][]float64{"lat-base": latency, "lat-can": latency})
	m := judgeSpec(addr, q("lat", judgement.Increase, 1, false))
	m.Headers = []rampv1.WebMetricHeader{{Key: "Authorization", Value: "Bearer t0ken"}}
	if _, err := measure(t, m); err != nil {
		t.Fatal(err)
	}
	if len(f.forms) != 2 {
		t.Fatalf("%d requests, want 2", len(f.forms))
	}
	for i, group := range []string{"base", "can"} {
		got := f.forms[i]
		want := map[string]string{"query": `lat{hash="lat-` + group + `"}`, "start": "2026-03-01T11:59:40Z", "end": "2026-03-01T12:00:00Z", "step": "1"}
		for k, v := range want {
			if got.Get(k) != v {
				t.Errorf("request %d: %s = %q, want %q", i, k, got.Get(k), v)
			}
		}
		if len(got) != len(want) {
			t.Errorf("request %d: form %v, want only %v", i, got, want)
		}
		if h := f.headers[i].Get("Authorization"); h != "Bearer t0ken" {
			t.Errorf("request %d: Authorization %q, want the metric's header", i, h)
		}
	}
}

// TestMeasureMetadata pins the metadata keys and what they hold: samples
// of every series are pooled (the fake splits each group in two series);
// p = 2/C(40,20) for two separated samples of 20; 50 is marginal.
func TestMeasureMetadata(t *testing.T) {
	_, addr := start(t, map[string][]float64{"lat-base": latency, "lat-can": scaled(latency, 1.2), "cpu-base": latency, "cpu-can": latency})
	res, err := measure(t, judgeSpec(addr, q("lat", judgement.Increase, 1, false), q("cpu", judgement.Increase, 1, false)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"score":       "50",
		"lat.verdict": "High", "lat.u": "400", "lat.p-value": "1.451e-11", "lat.test": "exact",
		"lat.effect-size": "0.2005", "lat.n-baseline": "20", "lat.n-canary": "20",
		"cpu.verdict": "Pass", "cpu.u": "200", "cpu.p-value": "1", "cpu.test": "normal",
		"cpu.effect-size": "0", "cpu.n-baseline": "20", "cpu.n-canary": "20",
	}
	if !maps.Equal(res.Metadata, want) {
		keys := slices.Sorted(maps.Keys(res.Metadata))
		for _, k := range keys {
			t.Logf("%s=%s", k, res.Metadata[k])
		}
		t.Fatalf("metadata differs from %v", want)
	}
	if res.Phase != rampv1.AnalysisPhaseInconclusive || res.Message != "score 50: lat High (p=1.45e-11, effect +20.1%); cpu Pass (p=1, effect +0.0%)" {
		t.Fatalf("phase %s, message %q", res.Phase, res.Message)
	}
}

// TestMeasureErrors: a bad spec, a failing query or no data at all is an
// error naming the field, the metric and the group.
func TestMeasureErrors(t *testing.T) {
	f, addr := start(t, map[string][]float64{})
	ok := judgeSpec(addr, q("lat", judgement.Increase, 1, false))
	for _, c := range []struct {
		name   string
		edit   func(*rampv1.JudgeMetric)
		status int
		want   string
	}{
		{"no data", func(*rampv1.JudgeMetric) {}, 0, `judge: no data: lat NoData (baseline 0, canary 0 samples)`},
		{"query error", func(*rampv1.JudgeMetric) {}, 400, `judge: metric "lat", baseline: prometheus query failed: bad_data: parse error`},
		{"no address", func(m *rampv1.JudgeMetric) { m.Address = "" }, 0, "judge: address: not set"},
		{"no baseline", func(m *rampv1.JudgeMetric) { m.Baseline = "" }, 0, "judge: baseline: not set"},
		{"same groups", func(m *rampv1.JudgeMetric) { m.Canary = "base" }, 0, `judge: canary: "base" is also the baseline`},
		{"lookback", func(m *rampv1.JudgeMetric) { m.Lookback = "-1m" }, 0, `judge: lookback: "-1m" must be a positive duration`},
		{"step", func(m *rampv1.JudgeMetric) { m.Step = "1h" }, 0, "judge: step: 1h0m0s is longer than lookback 20s"},
		{"points", func(m *rampv1.JudgeMetric) { m.Lookback, m.Step = "1h", "10ms" }, 0, "judge: step: 10ms over lookback 1h0m0s gives 360000 points per series, more than 11000"},
		{"confidence NaN", func(m *rampv1.JudgeMetric) { m.Confidence = "NaN" }, 0, `judge: confidence: "NaN" must be a number between 0 and 1`},
		{"effect NaN", func(m *rampv1.JudgeMetric) { m.Metrics[0].EffectSize = "NaN" }, 0, `judge: metrics[0].effectSize: "NaN" must be a number >= 0`},
		{"confidence", func(m *rampv1.JudgeMetric) { m.Confidence = "95" }, 0, `judge: confidence: "95" must be a number between 0 and 1`},
		{"threshold", func(m *rampv1.JudgeMetric) { m.Threshold.Marginal = 95 }, 0, "judge: threshold: need 0 <= marginal (95) <= pass (90) <= 100"},
		{"no metrics", func(m *rampv1.JudgeMetric) { m.Metrics = nil }, 0, "judge: metrics: at least one is needed"},
		{"placeholder", func(m *rampv1.JudgeMetric) { m.Metrics[0].Query = "up" }, 0, "judge: metrics[0].query: must hold {{group}}"},
		{"direction", func(m *rampv1.JudgeMetric) { m.Metrics[0].Direction = "up" }, 0, `judge: metrics[0].direction: "up" must be increase, decrease or either`},
		{"effect", func(m *rampv1.JudgeMetric) { m.Metrics[0].EffectSize = "-1" }, 0, `judge: metrics[0].effectSize: "-1" must be a number >= 0`},
		{"weight", func(m *rampv1.JudgeMetric) { w := int64(-1); m.Metrics[0].Weight = &w }, 0, "judge: metrics[0].weight: -1 must not be negative"},
		{"name", func(m *rampv1.JudgeMetric) { m.Metrics[0].Name = "a.b" }, 0, `judge: metrics[0].name: "a.b" must be set, without blanks or dots`},
		{"duplicate", func(m *rampv1.JudgeMetric) { m.Metrics = append(m.Metrics, m.Metrics[0]) }, 0, `judge: metrics[1].name: "lat" is used twice`},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := ok
			m.Metrics = slices.Clone(ok.Metrics)
			c.edit(&m)
			f.status = c.status
			_, err := measure(t, m)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// TestStepText: the step goes to Prometheus as plain seconds, a form it
// parses for fractional and large steps alike ("1.5s" and "1e+06s" it
// refuses).
func TestStepText(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Second: "1", 1500 * time.Millisecond: "1.5", time.Millisecond: "0.001", 300 * time.Hour: "1080000",
	} {
		if got := stepText(d); got != want {
			t.Errorf("stepText(%s) = %q, want %q", d, got, want)
		}
	}
}
