package graphite

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// serve starts a fake graphite-web that answers a render API request as
// Graphite documents it (GET /render, format=json) with status and body;
// any other request gets 404. It returns the address and the last request.
func serve(t *testing.T, status int, body string) (string, func() *http.Request) {
	t.Helper()
	var mu sync.Mutex
	var last *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		last = r.Clone(context.Background())
		mu.Unlock()
		if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/render") || r.URL.Query().Get("format") != "json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() *http.Request { mu.Lock(); defer mu.Unlock(); return last }
}

func request(address, query string) provider.Request {
	return provider.Request{Metric: rampv1.Metric{Name: "m", Provider: rampv1.MetricProvider{
		Graphite: &rampv1.GraphiteMetric{Address: address, Query: query}}}}
}

// upstream's documented example query, as a template writes it.
const docQuery = `target=summarize(
  asPercent(
    sumSeries(stats.timers.app.web.outcome.{CLIENT_ERROR,SUCCESS}.count),
    sumSeries(stats.timers.app.web.outcome.*.count)
  ),
  '5min',
  'avg'
)&from=-10min`

func TestMeasureRequest(t *testing.T) {
	addr, last := serve(t, 200, `[{"target":"a","datapoints":[[null,1700000000],[42,1700000060],[43.5,1700000120]]},{"target":"b","datapoints":[[1,1700000000]]}]`)
	res, err := testProvider().Measure(context.Background(), request(addr+"/graphite/", docQuery))
	if err != nil {
		t.Fatal(err)
	}
	r := last()
	if r.Method != http.MethodGet || r.URL.Path != "/graphite/render" {
		t.Errorf("request %s %s, want GET /graphite/render", r.Method, r.URL.Path)
	}
	want := url.Values{
		"target": {"summarize(asPercent(sumSeries(stats.timers.app.web.outcome.{CLIENT_ERROR,SUCCESS}.count),sumSeries(stats.timers.app.web.outcome.*.count)),'5min','avg')"},
		"from":   {"-10min"},
		"format": {"json"},
	}
	if got := r.URL.Query(); got.Encode() != want.Encode() {
		t.Errorf("query\n got %v\nwant %v", got, want)
	}
	if v, ok := res.Value.([]float64); !ok || len(v) != 2 || v[0] != 42 || v[1] != 43.5 {
		t.Errorf("value %#v, want the first series' non-null values [42 43.5]", res.Value)
	}
	if res.Display != "[42.000000,43.500000]" {
		t.Errorf("display %q", res.Display)
	}
}

func TestMeasureErrors(t *testing.T) {
	const secret = "s3cr3t-arg"
	up, _ := serve(t, 200, `[]`)
	bad, _ := serve(t, 400, "<html><body>\n<h1>Bad Request</h1>\nInvalid target "+strings.Repeat("x", 300)+"</body></html>")
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	for _, tc := range []struct {
		name, address, query, want string
	}{
		{"no values", up, "target=a", "graphite query failed: no values found"},
		{"graphite error", bad, "target=a", "graphite query failed: error response (HTTP 400): <html><body> <h1>Bad Request</h1> Invalid target xxx"},
		{"unreachable", closed.URL + "/" + secret, "target=" + secret, "graphite query failed: GET " + closed.URL + ": dial tcp"},
		{"no address", "", "target=a", "graphite: address is not set"},
		{"address not a URL", "graphite:8080", "target=a", "graphite: address is not an http(s) URL"},
		{"no target", up, "from=-5min", "graphite: query has no target= parameter"},
		{"not a query", up, "target=a;b", "graphite: query is not URL query parameters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := testProvider().Measure(context.Background(), request(tc.address, tc.query))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %v, want prefix %q", err, tc.want)
			}
			if strings.Contains(err.Error(), secret) || len(err.Error()) > 400 {
				t.Fatalf("error leaks the query or is unbounded: %v", err)
			}
		})
	}
	if _, err := testProvider().Measure(context.Background(), provider.Request{}); err == nil {
		t.Error("a metric without graphite measured")
	}
}

func TestMeasureHonoursContext(t *testing.T) {
	hang := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(hang.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := testProvider().Measure(ctx, request(hang.URL, "target=a"))
	if err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Fatalf("error %v, want the caller's deadline", err)
	}
}

// TestResultsFitConditions judges measured values as the controller does,
// with upstream's documented condition shape (result[0] >= 90).
func TestResultsFitConditions(t *testing.T) {
	for _, tc := range []struct {
		body, condition string
		want            rampv1.AnalysisPhase
	}{
		{`[{"datapoints":[[95.5,1]]}]`, "result[0] >= 90.000000", rampv1.AnalysisPhaseSuccessful},
		{`[{"datapoints":[[80,1],[null,2]]}]`, "result[0] >= 90.000000", rampv1.AnalysisPhaseFailed},
		{`[{"datapoints":[[null,1]]}]`, "len(result) == 0", rampv1.AnalysisPhaseSuccessful},
		{`[{"datapoints":[["91",1],[92,2]]}]`, "all(result, # > 90)", rampv1.AnalysisPhaseSuccessful},
	} {
		addr, _ := serve(t, 200, tc.body)
		metric := rampv1.Metric{Name: "m", SuccessCondition: tc.condition, Provider: rampv1.MetricProvider{
			Graphite: &rampv1.GraphiteMetric{Address: addr, Query: "target=a"}}}
		res, err := testProvider().Measure(context.Background(), provider.Request{Metric: metric})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := analysis.Evaluate(metric, res.Value); got != tc.want || err != nil {
			t.Errorf("%s on %s: %s, %v; want %s", tc.condition, res.Display, got, err, tc.want)
		}
	}
}

// testProvider is the provider with the zero HTTP policy, as registered
// without a controller.
func testProvider() *Provider { return New(httpfetch.NewClients(nil, provider.HTTPPolicy{})) }
