package skywalking

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/skywalking/skywalkingtest"
)

var clock = time.Date(2026, 3, 1, 12, 5, 30, 0, time.UTC)

// upstream's documented query and condition.
const (
	docQuery = `query queryData($duration: Duration!) {
  service_apdex: readMetricsValues(
    condition: { name: "service_apdex", entity: { scope: Service, serviceName: "web", normal: true } },
    duration: $duration) {
      label values { values { value } }
    }
}`
	docCondition = "all(result.service_apdex.values.values, {asFloat(.value) >= 9900})"
)

func newProvider() *Provider {
	return New(httpfetch.NewClients(nil, provider.HTTPPolicy{}), func() time.Time { return clock })
}

func metric(address, query string, interval rampv1.DurationString) rampv1.Metric {
	return rampv1.Metric{Name: "apdex", SuccessCondition: docCondition, Provider: rampv1.MetricProvider{
		SkyWalking: &rampv1.SkyWalkingMetric{Address: address, Query: query, Interval: interval}}}
}

func oap(t *testing.T, answer func(string, skywalkingtest.Duration) (any, string)) (*skywalkingtest.Server, string) {
	t.Helper()
	s := &skywalkingtest.Server{Answer: answer}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL
}

func TestMeasure(t *testing.T) {
	fake, addr := oap(t, func(q string, _ skywalkingtest.Duration) (any, string) {
		if !strings.Contains(q, `serviceName: "web"`) {
			return nil, "unexpected query"
		}
		return skywalkingtest.Apdex(9950, 10000), ""
	})
	m := metric(addr, docQuery, "3m")
	res, err := newProvider().Measure(context.Background(), provider.Request{Metric: m})
	if err != nil {
		t.Fatal(err)
	}
	if d := fake.Durations(); len(d) != 1 || d[0] != (skywalkingtest.Duration{Start: "2026-03-01 1202", End: "2026-03-01 1205", Step: "MINUTE"}) {
		t.Errorf("durations %+v, want the 3m before the clock at minute steps", d)
	}
	if want := `{"service_apdex":{"label":null,"values":{"values":[{"value":9950},{"value":10000}]}}}`; res.Display != want {
		t.Errorf("display %s\nwant %s", res.Display, want)
	}
	if got, err := analysis.Evaluate(m, res.Value); got != rampv1.AnalysisPhaseSuccessful || err != nil {
		t.Errorf("upstream's condition: %s %v", got, err)
	}
	_, low := oap(t, func(string, skywalkingtest.Duration) (any, string) { return skywalkingtest.Apdex(9950, 9000), "" })
	res, err = newProvider().Measure(context.Background(), provider.Request{Metric: metric(low, docQuery, "3m")})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := analysis.Evaluate(m, res.Value); got != rampv1.AnalysisPhaseFailed || err != nil {
		t.Errorf("a value below 9900: %s %v", got, err)
	}
}

func TestMeasureErrors(t *testing.T) {
	const secret = "s3cr3t-arg"
	_, addr := oap(t, func(q string, _ skywalkingtest.Duration) (any, string) {
		if strings.Contains(q, "nodata") {
			return nil, ""
		}
		return nil, "Exception while fetching data (/service_apdex) : metric service_apdex not found"
	})
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("<html>bad gateway</html>"))
	}))
	t.Cleanup(down.Close)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	for _, tc := range []struct {
		name, address, query string
		interval             rampv1.DurationString
		want                 string
	}{
		{"graphql error", addr, docQuery, "3m", "skywalking query failed: graphql: Exception while fetching data (/service_apdex) : metric service_apdex not found"},
		{"null data", addr, docQuery + " # nodata", "3m", "skywalking query failed: no results returned from SkyWalking query"},
		{"not graphql", down.URL, docQuery, "3m", "skywalking query failed: server returned HTTP 502: <html>bad gateway</html>"},
		{"unreachable", closed.URL + "/" + secret, docQuery + secret, "3m", "skywalking query failed: POST " + closed.URL + ": dial tcp"},
		{"no interval", addr, docQuery, "", "skywalking: interval is not set"},
		{"bad interval", addr, docQuery, "3 minutes", `skywalking: interval "3 minutes" is not a positive duration`},
		{"no address", "", docQuery, "3m", "skywalking: address is not set"},
		{"address not a URL", "oap:12800", docQuery, "3m", "skywalking: address is not an http(s) URL"},
		{"no query", addr, "", "3m", "skywalking: query is not set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newProvider().Measure(context.Background(), provider.Request{Metric: metric(tc.address, tc.query, tc.interval)})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %v\nwant prefix %q", err, tc.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("error leaks the query or path: %v", err)
			}
		})
	}
	if _, err := newProvider().Measure(context.Background(), provider.Request{}); err == nil {
		t.Error("a metric without skywalking measured")
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  int
		body    string
		display string
		err     string
	}{
		{"data", 200, `{"data":{"b":[1,2],"a":"x"}}`, `{"a":"x","b":[1,2]}`, ""},
		{"errors win over data", 200, `{"data":{"a":1},"errors":[{"message":"one"},{"message":"two"}]}`, "", "graphql: one; two"},
		{"error status with graphql errors", 400, `{"errors":[{"message":"Validation error"}]}`, "", "graphql: Validation error"},
		{"error status, JSON without errors", 500, `{"data":null}`, "", "server returned HTTP 500"},
		{"null data", 200, `{"data":null}`, "", "no results returned from SkyWalking query"},
		{"no data", 200, `{}`, "", "no results returned from SkyWalking query"},
		{"not json", 200, `<html>`, "", "invalid JSON response"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := parse(tc.status, []byte(tc.body))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || res.Display != tc.display {
				t.Fatalf("got %q, %v; want %q", res.Display, err, tc.display)
			}
		})
	}
}

// FuzzParse: no answer panics the decoder; a result always has a value
// and a display that is its JSON, an error neither.
// TestParseBounded: an answer of more than provider.MaxValues JSON values
// is an error before it is decoded (a non-2xx one names its status);
// commas and brackets inside strings do not count.
func TestParseBounded(t *testing.T) {
	values := func(n int) string { return strings.TrimSuffix(strings.Repeat("0,", n), ",") }
	// {"data":{"a":[...],"s":""}}: the two objects, the array and s count one each.
	fits := `{"data":{"a":[` + values(provider.MaxValues-4) + `],"s":"` + strings.Repeat(`,[{\"`, provider.MaxValues) + `"}}`
	if res, err := parse(200, []byte(fits)); err != nil || len(res.Value.(map[string]any)["a"].([]any)) != provider.MaxValues-4 {
		t.Fatalf("%d values: %v", provider.MaxValues, err)
	}
	over := `{"data":{"a":[` + values(provider.MaxValues-2) + `]}}`
	_, err := parse(200, []byte(over))
	if want := "the answer has more than 100000 JSON values: narrow the query"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	_, err = parse(502, []byte(over))
	if err == nil || !strings.HasPrefix(err.Error(), `server returned HTTP 502: {"data":{"a":[0,0,`) {
		t.Errorf("error %v, want the status", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"data":{"a":[{"value":1}]}}`, `{"errors":[{"message":"x"}]}`, `{"data":null}`, `[]`, `"x"`, `{`, ``} {
		f.Add(200, []byte(s))
	}
	f.Add(503, []byte(`{"data":1}`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		res, err := parse(status, body)
		if err != nil {
			if res.Value != nil || res.Display != "" {
				t.Fatalf("error %v with a result %+v", err, res)
			}
			return
		}
		if res.Value == nil || res.Display == "" || res.Display == "null" {
			t.Fatalf("result %+v", res)
		}
	})
}

func TestMeasureHonoursContext(t *testing.T) {
	hang := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // the server notices the client going away only once the body is read
		<-r.Context().Done()
	}))
	t.Cleanup(hang.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := newProvider().Measure(ctx, provider.Request{Metric: metric(hang.URL, docQuery, "3m")})
	if err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Fatalf("error %v, want the caller's deadline", err)
	}
}
