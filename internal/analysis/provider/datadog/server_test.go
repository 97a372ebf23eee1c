package datadog

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/providertest"
)

// Test credentials: the keys a fake Datadog accepts.
const (
	testAPIKey = "dd-api-0123456789abcdef"
	testAppKey = "dd-app-fedcba9876543210"
)

// now is the clock of every test: the query window ends here.
var now = time.Unix(1700000000, 0)

// secrets are Secrets by "namespace/name" in the controller's namespace
// "ctl"; Deps() makes them the provider's dependencies.
type secrets = providertest.Secrets

// answer is what the fake Datadog sends back.
type answer struct {
	status int
	header map[string]string
	body   string
}

// fakeDatadog is a Datadog API as its reference documents it: GET
// /api/v1/query with from, to (unix seconds) and query; POST
// /api/v2/query/scalar with a ScalarFormulaQueryRequest JSON body; both
// authenticated by the DD-API-KEY and DD-APPLICATION-KEY headers (403
// {"errors":["Forbidden"]} otherwise). It checks every request against
// want (the v1 query parameters, or the v2 body) and fails the test on any
// difference; a request it accepts gets ans.
func fakeDatadog(t *testing.T, want any, ans answer) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("DD-API-KEY") != testAPIKey || r.Header.Get("DD-APPLICATION-KEY") != testAppKey {
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"errors":["Forbidden"]}`)
			return
		}
		if got := r.Header.Get("Content-Type"); got != "application/json" {
			t.Errorf("Content-Type = %q", got)
		}
		switch want := want.(type) {
		case map[string]string: // v1
			if r.Method != http.MethodGet || r.URL.Path != "/api/v1/query" {
				t.Errorf("request %s %s, want GET /api/v1/query", r.Method, r.URL.Path)
			}
			got := map[string]string{}
			for k, v := range r.URL.Query() {
				got[k] = v[0]
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("query parameters %v, want %v", got, want)
			}
		default: // v2: the body, compared as JSON
			if r.Method != http.MethodPost || r.URL.Path != "/api/v2/query/scalar" {
				t.Errorf("request %s %s, want POST /api/v2/query/scalar", r.Method, r.URL.Path)
			}
			var got, exp any
			b, _ := io.ReadAll(r.Body)
			wb, _ := json.Marshal(want)
			if json.Unmarshal(b, &got) != nil || json.Unmarshal(wb, &exp) != nil || !reflect.DeepEqual(got, exp) {
				t.Errorf("body %s, want %s", b, wb)
			}
		}
		for k, v := range ans.header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(ans.status)
		_, _ = io.WriteString(w, ans.body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// deps is the "datadog" Secret of the controller's namespace pointing at
// address with the test keys.
func deps(address string) secrets {
	return secrets{"ctl/datadog": {"address": []byte(address), "api-key": []byte(testAPIKey), "app-key": []byte(testAppKey)}}
}

// measure runs m through a Provider on d at the test clock.
func measure(d secrets, m rampv1.DatadogMetric) (provider.Result, error) {
	run := &rampv1.AnalysisRun{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "run"}}
	req := provider.Request{Run: run, Metric: rampv1.Metric{Name: "m", Provider: rampv1.MetricProvider{Datadog: &m}}}
	return New(d.Deps(), WithClock(func() time.Time { return now })).Measure(context.Background(), req)
}

// v2Body is the documented request body of a v2 query.
func v2Body(queries []map[string]string, formula string) map[string]any {
	attrs := map[string]any{"from": now.Add(-5 * time.Minute).UnixMilli(), "to": now.UnixMilli(), "queries": queries}
	if formula != "" {
		attrs["formulas"] = []map[string]string{{"formula": formula}}
	}
	return map[string]any{"data": map[string]any{"type": "scalar_request", "attributes": attrs}}
}
