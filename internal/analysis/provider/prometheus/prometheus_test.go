package prometheus

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

var clock = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// seen is what a fake Prometheus server received.
type seen struct {
	method, path string
	form         url.Values
	header       http.Header
	host         string
}

// serve starts a fake Prometheus answering every request with status and
// body, and returns its URL and what it received last.
func serve(t *testing.T, tls bool, status int, body string) (string, func() seen) {
	t.Helper()
	var mu sync.Mutex
	var last seen
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		mu.Lock()
		last = seen{r.Method, r.URL.Path, r.Form, r.Header.Clone(), r.Host}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	})
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // TLS handshake failures are expected
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv.URL, func() seen { mu.Lock(); defer mu.Unlock(); return last }
}

func request(m rampv1.PrometheusMetric) provider.Request {
	return provider.Request{Metric: rampv1.Metric{Name: "m", Provider: rampv1.MetricProvider{Prometheus: &m}}}
}

const vectorBody = `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"1"]}]}}`

func TestMeasureRequest(t *testing.T) {
	addr, last := serve(t, false, 200, vectorBody)
	p := New(WithClock(func() time.Time { return clock }))
	res, err := p.Measure(context.Background(), request(rampv1.PrometheusMetric{
		Address: addr + "/prom/", Query: "up == 1",
		Headers: []rampv1.WebMetricHeader{{Key: "X-Scope-OrgID", Value: "tenant-a"}, {Key: "Host", Value: "prom.example"}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	got := last()
	if got.method != http.MethodPost || got.path != "/prom/api/v1/query" {
		t.Errorf("request %s %s, want POST /prom/api/v1/query", got.method, got.path)
	}
	if q, ts := got.form.Get("query"), got.form.Get("time"); q != "up == 1" || ts != "2026-03-01T12:00:00Z" {
		t.Errorf("form query=%q time=%q", q, ts)
	}
	if got.header.Get("X-Scope-OrgID") != "tenant-a" || got.host != "prom.example" {
		t.Errorf("headers not sent: %v host %q", got.header, got.host)
	}
	if res.Metadata[rampv1.ResolvedPrometheusQueryMetadataKey] != "up == 1" || res.Display != "[1]" {
		t.Errorf("result %+v", res)
	}
}

func TestMeasureFallsBackToGet(t *testing.T) {
	var methods []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		methods = append(methods, r.Method)
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		if r.URL.Query().Get("query") != "up" || r.URL.Query().Get("tenant") != "a" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte(vectorBody))
	}))
	defer srv.Close()
	res, err := New().Measure(context.Background(), request(rampv1.PrometheusMetric{Address: srv.URL + "?tenant=a", Query: "up"}))
	if err != nil || res.Display != "[1]" || strings.Join(methods, ",") != "POST,GET" {
		t.Fatalf("got %+v, %v after %v", res, err, methods)
	}
}

func TestMeasureErrors(t *testing.T) {
	const secret = "s3cr3t-token"
	auth := []rampv1.WebMetricHeader{{Key: "Authorization", Value: "Bearer " + secret}}
	up, _ := serve(t, false, 200, vectorBody)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm() // the server notices the client going away only once the body is read
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	t.Cleanup(slow.Close)
	promErr, _ := serve(t, false, 400, `{"status":"error","errorType":"bad_data","error":"1:4: parse error: unexpected <EOF>"}`)
	unavailable, _ := serve(t, false, 503, `<html>`+secret+`</html>`)
	garbage, _ := serve(t, false, 200, `not json`)
	huge, _ := serve(t, false, 200, strings.Repeat(" ", httpfetch.MaxResponseBytes+1))
	one := int64(1)
	negative := int64(-1)
	for _, tc := range []struct {
		name string
		m    rampv1.PrometheusMetric
		want string
	}{
		{"prometheus error", rampv1.PrometheusMetric{Address: promErr, Query: "up{", Headers: auth},
			"prometheus query failed: bad_data: 1:4: parse error: unexpected <EOF>"},
		{"non 2xx", rampv1.PrometheusMetric{Address: unavailable, Query: "up", Headers: auth},
			"prometheus query failed: received non 2xx response code: 503"},
		{"invalid json", rampv1.PrometheusMetric{Address: garbage, Query: "up", Headers: auth},
			"prometheus query failed: invalid JSON response: invalid character"},
		{"too large", rampv1.PrometheusMetric{Address: huge, Query: "up"},
			"prometheus query failed: POST " + huge + ": response larger than the 16 MiB limit"},
		{"unreachable", rampv1.PrometheusMetric{Address: closed.URL + "/" + secret, Query: secret, Headers: auth},
			"prometheus query failed: POST " + closed.URL + ": dial tcp"}, // scheme and host only: a path may carry an argument
		{"timeout", rampv1.PrometheusMetric{Address: slow.URL, Query: "up", Timeout: &one, Headers: auth},
			"prometheus query failed: POST " + slow.URL + ": timed out after 1s"},
		{"negative timeout", rampv1.PrometheusMetric{Address: up, Query: "up", Timeout: &negative},
			"prometheus: timeout must not be negative"},
		{"no address", rampv1.PrometheusMetric{Query: "up"}, "prometheus: address is not set"},
		{"address not a URL", rampv1.PrometheusMetric{Address: "prometheus:9090", Query: "up"},
			"prometheus: address is not an http(s) URL"},
		{"no query", rampv1.PrometheusMetric{Address: up, Query: " "}, "prometheus: query is not set"},
		{"authentication", rampv1.PrometheusMetric{Address: up, Query: "up",
			Authentication: rampv1.MetricAuthentication{OAuth2: rampv1.OAuth2Config{ClientSecret: secret}}},
			"prometheus: authentication (sigv4, oauth2) is not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := New().Measure(context.Background(), request(tc.m))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %v, want prefix %q", err, tc.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("error leaks a secret: %v", err)
			}
		})
	}
	if _, err := New().Measure(context.Background(), provider.Request{}); err == nil {
		t.Error("a metric without prometheus measured")
	}
}

func TestMeasureDefaultAddress(t *testing.T) {
	addr, _ := serve(t, false, 200, vectorBody)
	if _, err := New(WithDefaultAddress(addr)).Measure(context.Background(), request(rampv1.PrometheusMetric{Query: "up"})); err != nil {
		t.Fatal(err)
	}
}

func TestMeasureTLS(t *testing.T) {
	addr, _ := serve(t, true, 200, vectorBody)
	if _, err := New().Measure(context.Background(), request(rampv1.PrometheusMetric{Address: addr, Query: "up"})); err == nil ||
		!strings.Contains(err.Error(), "certificate") {
		t.Errorf("self-signed certificate accepted, or another error: %v", err)
	}
	if _, err := New().Measure(context.Background(), request(rampv1.PrometheusMetric{Address: addr, Query: "up", Insecure: true})); err != nil {
		t.Errorf("insecure: %v", err)
	}
}

func TestMeasureTLSTrustedTransport(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(vectorBody)) }))
	defer srv.Close()
	p := New(WithTransport(srv.Client().Transport.(*http.Transport)))
	if _, err := p.Measure(context.Background(), request(rampv1.PrometheusMetric{Address: srv.URL, Query: "up"})); err != nil {
		t.Fatal(err)
	}
}
