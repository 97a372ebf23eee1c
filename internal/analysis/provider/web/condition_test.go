package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/web"
)

// TestResultsFitConditions measures with a real HTTP round trip and judges
// the value with analysis.Evaluate, as the AnalysisRun controller does.
func TestResultsFitConditions(t *testing.T) {
	const (
		ok     = rampv1.AnalysisPhaseSuccessful
		failed = rampv1.AnalysisPhaseFailed
	)
	const body = `{"data":{"ok":true,"successPercent":0.95,"count":"7","rate":4,"items":[{"v":1},{"v":2}]},"status":"ok"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
	defer srv.Close()
	for _, tc := range []struct {
		path, condition string
		want            rampv1.AnalysisPhase
	}{
		{"{$.data.ok}", "result == true", ok},
		{"{$.data}", "result.ok && result.successPercent >= 0.90", ok},
		{"{$.data}", "result.successPercent >= 0.99", failed},
		{"", `result.status == "ok"`, ok},
		{"{$.data.count}", "asInt(result) > 3", ok},
		{"{$.data.rate}", "asInt(result) > 3 && result < 5", ok},
		{"{$.data.items[*].v}", "all(result, # > 0) && len(result) == 2", ok},
		{"{$.data.successPercent}", "result >= 0.9", ok},
		{"{$.data.items[2:]}", "len(result) == 0", ok},
	} {
		t.Run(tc.condition, func(t *testing.T) {
			metric := rampv1.Metric{Name: "m", SuccessCondition: tc.condition, Provider: rampv1.MetricProvider{
				Web: &rampv1.WebMetric{URL: srv.URL, JSONPath: tc.path},
			}}
			res, err := web.New().Measure(context.Background(), provider.Request{Metric: metric})
			if err != nil {
				t.Fatal(err)
			}
			if got, err := analysis.Evaluate(metric, res.Value); got != tc.want || err != nil {
				t.Fatalf("%s on %s: %s, %v; want %s", tc.condition, res.Display, got, err, tc.want)
			}
		})
	}
}
