package influxdb

import (
	"context"
	"encoding/base64"
	"fmt"
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
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/influxdb/influxdbtest"
)

const (
	token = "tok-7Hq2-s3cr3t"
	org   = "my-org"
)

// secrets are the profile Secrets the fake cluster holds, in argo-rollouts.
type secrets map[string]map[string]string

func (secrets) HTTPPolicy() provider.HTTPPolicy { return provider.HTTPPolicy{} }
func (secrets) CredentialNamespace() string     { return provider.DefaultCredentialNamespace }
func (s secrets) Secret(_ context.Context, ns, name string) (map[string][]byte, error) {
	data, ok := s[name]
	if !ok || ns != provider.DefaultCredentialNamespace {
		return nil, fmt.Errorf("secret %s/%s not found", ns, name)
	}
	out := map[string][]byte{}
	for k, v := range data {
		out[k] = []byte(v)
	}
	return out, nil
}

func newProvider(s secrets) *Provider {
	return New(s, httpfetch.NewClients(nil, provider.HTTPPolicy{}))
}

func metric(profile, lang, query string) rampv1.Metric {
	return rampv1.Metric{Name: "error-rate", Provider: rampv1.MetricProvider{
		Influxdb: &rampv1.InfluxdbMetric{Profile: profile, QueryLanguage: lang, Query: query}}}
}

// upstream's documented query.
const docQuery = `from(bucket: "app_istio")
  |> range(start: -15m)
  |> filter(fn: (r) => r["destination_workload"] == "web")
  |> filter(fn: (r) => r["_measurement"] == "istio:istio_requests_errors_percentage:rate1m:5xx")
`

func fluxServer(t *testing.T, answer func(string) (string, bool)) (*influxdbtest.Server, string) {
	t.Helper()
	s := &influxdbtest.Server{Token: token, Org: org, Answer: answer}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL
}

func TestFlux(t *testing.T) {
	fake, addr := fluxServer(t, func(string) (string, bool) {
		return influxdbtest.Table("double", "0.005", "0.006"), true
	})
	p := newProvider(secrets{"influxdb": {"address": addr + "/influx/", "authToken": token, "org": org}})
	m := metric("", "", docQuery)
	m.SuccessCondition = "result[0] <= 0.01"
	res, err := p.Measure(context.Background(), provider.Request{Metric: m})
	if err != nil {
		t.Fatal(err)
	}
	if res.Display != "[0.005 0.006]" {
		t.Errorf("display %q, want upstream's fmt.Sprint of the values", res.Display)
	}
	if q := fake.Queries(); len(q) != 1 || q[0] != docQuery {
		t.Errorf("queries %q", q)
	}
	if got, err := analysis.Evaluate(m, res.Value); got != rampv1.AnalysisPhaseSuccessful || err != nil {
		t.Errorf("upstream's condition on %s: %s %v", res.Display, got, err)
	}
}

func TestFluxProfile(t *testing.T) {
	_, addr := fluxServer(t, func(string) (string, bool) { return influxdbtest.Table("long", "3"), true })
	p := newProvider(secrets{"my-influxdb-secret": {"address": addr, "authToken": token, "org": org}})
	res, err := p.Measure(context.Background(), provider.Request{Metric: metric("my-influxdb-secret", "flux", "q")})
	if err != nil || res.Display != "[3]" {
		t.Fatalf("got %+v, %v", res, err)
	}
	if v := res.Value.([]any); v[0] != int64(3) {
		t.Errorf("a long is %T, want int64 as upstream", v[0])
	}
}

func TestErrors(t *testing.T) {
	_, addr := fluxServer(t, func(q string) (string, bool) {
		if q == "empty" {
			return "", true
		}
		return influxdbtest.Table("double", "1"), q != "bogus"
	})
	limited := &influxdbtest.Server{Token: token, Org: org, RetryAfter: "30"}
	limitedSrv := httptest.NewServer(limited)
	t.Cleanup(limitedSrv.Close)
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = fmt.Fprintf(w, `{"code":"unauthorized","message":"token %s (%s) is not valid"}`,
			r.Header.Get("Authorization"), base64.StdEncoding.EncodeToString([]byte(token)))
	}))
	t.Cleanup(echo.Close)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	good := map[string]string{"address": addr, "authToken": token, "org": org}
	with := func(k, v string) map[string]string {
		out := map[string]string{}
		for key, val := range good {
			out[key] = val
		}
		if v == "" {
			delete(out, k)
		} else {
			out[k] = v
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		profile map[string]string
		lang    string
		query   string
		want    string
	}{
		{"bad token", with("authToken", "wrong-"+token), "", "q",
			"influxdb flux query failed: HTTP 401 Unauthorized: credentials refused: unauthorized: unauthorized access"},
		{"token echoed", with("address", echo.URL), "", "q",
			"influxdb flux query failed: HTTP 401 Unauthorized: credentials refused: unauthorized: token Token ***** (*****) is not valid"},
		{"unknown org", with("org", "other-org"), "", "q",
			`influxdb flux query failed: HTTP 404 Not Found: request refused: not found: organization name "*****" not found`}, // the org is a value of the Secret: redacted
		{"rate limited", with("address", limitedSrv.URL), "", "q",
			"influxdb flux query failed: HTTP 429 Too Many Requests: rate limited (Retry-After 30): too many requests: org ***** has exceeded"},
		{"compile error", good, "", "bogus", "influxdb flux query failed: HTTP 400 Bad Request: request refused: invalid: compilation failed"},
		{"no results", good, "", "empty", "influxdb: no results returned from flux query"},
		{"keys missing", with("org", ""), "", "q", "influxdb: secret argo-rollouts/influxdb has no org"},
		{"unreachable", with("address", closed.URL), "", "q", "influxdb flux query failed: POST *****: dial tcp"},
		{"address not a URL", with("address", "influx:8086"), "", "q", "influxdb: the profile's address is not an http(s) URL"},
		{"no query", good, "", " ", "influxdb: query is not set"},
		{"language", good, "sql", "q", `influxdb: queryLanguage "sql" is not flux or influxql`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newProvider(secrets{"influxdb": tc.profile}).Measure(context.Background(),
				provider.Request{Metric: metric("", tc.lang, tc.query)})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %v\nwant prefix %q", err, tc.want)
			}
			for _, form := range []string{token, base64.StdEncoding.EncodeToString([]byte(token))} {
				if strings.Contains(err.Error(), form) {
					t.Fatalf("error leaks the token: %v", err)
				}
			}
		})
	}
	_, err := newProvider(secrets{}).Measure(context.Background(), provider.Request{Metric: metric("nope", "", "q")})
	if err == nil || err.Error() != "influxdb: secret argo-rollouts/nope not found" {
		t.Errorf("missing profile: %v", err)
	}
	if _, err := newProvider(nil).Measure(context.Background(), provider.Request{}); err == nil {
		t.Error("a metric without influxdb measured")
	}
}

func TestHonoursContext(t *testing.T) {
	hang := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // the server notices the client going away only once the body is read
		<-r.Context().Done()
	}))
	t.Cleanup(hang.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	p := newProvider(secrets{"influxdb": {"address": hang.URL, "authToken": token, "org": org}})
	_, err := p.Measure(ctx, provider.Request{Metric: metric("", "", "q")})
	if err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Fatalf("error %v, want the caller's deadline", err)
	}
}
