package judge

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/judgement"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/prometheus"
)

var clock = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fakeProm is a Prometheus HTTP API answering query_range with a matrix of
// the series registered for the selector the query names ("<selector>") (two series per
// selector, splitting the values, to check that series are pooled).
type fakeProm struct {
	mu      sync.Mutex
	series  map[string][]float64 // by selector
	forms   []url.Values
	headers []http.Header
	status  int
}

func (f *fakeProm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.forms = append(f.forms, r.PostForm)
	f.headers = append(f.headers, r.Header.Clone())
	if r.Method != http.MethodPost || r.URL.Path != "/api/v1/query_range" {
		http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusBadRequest)
		return
	}
	if f.status != 0 {
		w.WriteHeader(f.status)
		_, _ = w.Write([]byte(`{"status":"error","errorType":"bad_data","error":"parse error"}`))
		return
	}
	q := r.PostForm.Get("query")
	var values []float64
	for sel, v := range f.series {
		if strings.Contains(q, `"`+sel+`"`) {
			values = v
		}
	}
	half := len(values) / 2
	_, _ = fmt.Fprintf(w, `{"status":"success","data":{"resultType":"matrix","result":[%s,%s]}}`, matrix(values[:half]), matrix(values[half:]))
}

func matrix(v []float64) string {
	points := make([]string, len(v))
	for i, f := range v {
		points[i] = fmt.Sprintf(`[%d,"%g"]`, 1000+i, f)
	}
	return `{"metric":{},"values":[` + strings.Join(points, ",") + `]}`
}

func start(t *testing.T, series map[string][]float64) (*fakeProm, string) {
	t.Helper()
	f := &fakeProm{series: series}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv.URL
}

func measure(t *testing.T, m rampv1.JudgeMetric) (provider.Result, error) {
	t.Helper()
	p := New(prometheus.New(), func() time.Time { return clock })
	return p.Measure(context.Background(), provider.Request{Metric: rampv1.Metric{Name: "judge", Provider: rampv1.MetricProvider{Judge: &m}}})
}

// scaled is base with every value multiplied by k.
func scaled(base []float64, k float64) []float64 {
	out := make([]float64, len(base))
	for i, v := range base {
		out[i] = v * k
	}
	return out
}

// latency is 20 distinct samples around 100.
var latency = []float64{97, 103, 99, 101, 95, 105, 98, 102, 100, 104, 96, 100.5, 99.5, 101.5, 98.5, 97.5, 102.5, 103.5, 96.5, 94}

func judgeSpec(address string, metrics ...rampv1.JudgeQuery) rampv1.JudgeMetric {
	return rampv1.JudgeMetric{
		Address: address, Baseline: "base", Canary: "can", Lookback: "20s", Step: "1s",
		Threshold: rampv1.KayentaThreshold{Pass: 90, Marginal: 50}, Metrics: metrics,
	}
}

func q(name, direction string, weight int64, critical bool) rampv1.JudgeQuery {
	return rampv1.JudgeQuery{Name: name, Query: name + `{hash="` + name + `-{{group}}"}`, Direction: direction,
		EffectSize: "0.05", Weight: &weight, Critical: critical}
}

// TestMeasureJudges: the score and phase follow the per-metric verdicts,
// weights, directions and critical flags.
func TestMeasureJudges(t *testing.T) {
	for _, c := range []struct {
		name     string
		canary   map[string]float64 // scale of the canary over the baseline, per metric
		metrics  []rampv1.JudgeQuery
		score    float64
		phase    rampv1.AnalysisPhase
		verdicts map[string]judgement.Verdict
	}{
		{"equal passes", map[string]float64{"lat": 1}, []rampv1.JudgeQuery{q("lat", judgement.Increase, 1, false)},
			100, rampv1.AnalysisPhaseSuccessful, map[string]judgement.Verdict{"lat": judgement.Pass}},
		{"20% higher latency fails", map[string]float64{"lat": 1.2}, []rampv1.JudgeQuery{q("lat", judgement.Increase, 1, false)},
			0, rampv1.AnalysisPhaseFailed, map[string]judgement.Verdict{"lat": judgement.High}},
		{"20% lower latency is harmless", map[string]float64{"lat": 0.8}, []rampv1.JudgeQuery{q("lat", judgement.Increase, 1, false)},
			100, rampv1.AnalysisPhaseSuccessful, map[string]judgement.Verdict{"lat": judgement.Pass}},
		{"either direction: lower fails", map[string]float64{"lat": 0.8}, []rampv1.JudgeQuery{q("lat", judgement.Either, 1, false)},
			0, rampv1.AnalysisPhaseFailed, map[string]judgement.Verdict{"lat": judgement.Low}},
		{"decrease is bad", map[string]float64{"rps": 0.8}, []rampv1.JudgeQuery{q("rps", judgement.Decrease, 1, false)},
			0, rampv1.AnalysisPhaseFailed, map[string]judgement.Verdict{"rps": judgement.Low}},
		{"2% is below the effect size", map[string]float64{"lat": 1.02}, []rampv1.JudgeQuery{q("lat", judgement.Either, 1, false)},
			100, rampv1.AnalysisPhaseSuccessful, map[string]judgement.Verdict{"lat": judgement.Pass}},
		{"weights: 3 of 4 pass is marginal", map[string]float64{"lat": 1.2, "cpu": 1},
			[]rampv1.JudgeQuery{q("lat", judgement.Increase, 1, false), q("cpu", judgement.Increase, 3, false)},
			75, rampv1.AnalysisPhaseInconclusive, map[string]judgement.Verdict{"lat": judgement.High, "cpu": judgement.Pass}},
		{"a critical failure fails all", map[string]float64{"lat": 1.2, "cpu": 1},
			[]rampv1.JudgeQuery{q("lat", judgement.Increase, 1, true), q("cpu", judgement.Increase, 30, false)},
			0, rampv1.AnalysisPhaseFailed, map[string]judgement.Verdict{"lat": judgement.High, "cpu": judgement.Pass}},
		{"NoData is left out of the score", map[string]float64{"lat": 1},
			[]rampv1.JudgeQuery{q("lat", judgement.Increase, 1, false), q("missing", judgement.Increase, 5, false)},
			100, rampv1.AnalysisPhaseSuccessful, map[string]judgement.Verdict{"lat": judgement.Pass, "missing": judgement.NoData}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, addr := start(t, map[string][]float64{})
			for name, k := range c.canary {
				f.series[name+"-base"] = latency
				f.series[name+"-can"] = scaled(latency, k)
			}
			res, err := measure(t, judgeSpec(addr, c.metrics...))
			if err != nil {
				t.Fatal(err)
			}
			if res.Value != c.score || res.Phase != c.phase || res.Display != strconv.FormatFloat(c.score, 'f', -1, 64) {
				t.Fatalf("score %v (%q) phase %s, want %v %s; %s", res.Value, res.Display, res.Phase, c.score, c.phase, res.Message)
			}
			for name, v := range c.verdicts {
				if got := res.Metadata[name+"."+judgement.KeyVerdict]; got != string(v) {
					t.Errorf("%s verdict %q, want %s (%s)", name, got, v, res.Message)
				}
			}
		})
	}
}
