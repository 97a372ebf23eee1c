package prometheus_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/prometheus"
)

// TestResultsFitConditions measures with a real HTTP round trip and judges
// the value with analysis.Evaluate, as the AnalysisRun controller does.
func TestResultsFitConditions(t *testing.T) {
	const (
		ok     = rampv1.AnalysisPhaseSuccessful
		failed = rampv1.AnalysisPhaseFailed
	)
	data := func(resultType, result string) string {
		return `{"status":"success","data":{"resultType":"` + resultType + `","result":` + result + `}}`
	}
	for _, tc := range []struct {
		name, body, condition string
		want                  rampv1.AnalysisPhase
	}{
		{"vector index", data("vector", `[{"value":[1,"1"]}]`), "result[0] > 0", ok},
		{"vector below", data("vector", `[{"value":[1,"0.5"]}]`), "result[0] >= 0.95", failed},
		{"empty vector guarded", data("vector", `[]`), "len(result) == 0 || result[0] >= 0.95", ok},
		{"scalar", data("scalar", `[1,"0.95"]`), "result >= 0.9", ok},
		{"asFloat", data("scalar", `[1,"1.5"]`), "asFloat(result) > 1", ok},
		{"NaN", data("vector", `[{"value":[1,"NaN"]}]`), "isNaN(result[0])", ok},
		{"NaN compared", data("scalar", `[1,"NaN"]`), "result >= 0.9", failed},
		{"Inf", data("scalar", `[1,"+Inf"]`), "isInf(result)", ok},
		{"matrix all", data("matrix", `[{"values":[[1,"200"],[2,"900"]]}]`), "all(result, # < 1000)", ok},
		{"matrix one above", data("matrix", `[{"values":[[1,"200"]]},{"values":[[1,"1200"]]}]`), "all(result, # < 1000)", failed},
		{"string", data("string", `[1,"ok"]`), `result == "ok"`, ok},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(tc.body)) }))
			defer srv.Close()
			metric := rampv1.Metric{Name: "m", SuccessCondition: tc.condition, Provider: rampv1.MetricProvider{
				Prometheus: &rampv1.PrometheusMetric{Address: srv.URL, Query: "q"},
			}}
			res, err := prometheus.New().Measure(context.Background(), provider.Request{Metric: metric})
			if err != nil {
				t.Fatal(err)
			}
			if got, err := analysis.Evaluate(metric, res.Value); got != tc.want || err != nil {
				t.Fatalf("%s on %s (%#v): %s, %v; want %s", tc.condition, res.Display, res.Value, got, err, tc.want)
			}
		})
	}
}
