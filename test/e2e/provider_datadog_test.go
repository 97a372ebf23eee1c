//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// datadogServer serves Datadog's documented metrics query API for the keys
// given: GET /api/v1/query (from, to in unix seconds, query) and POST
// /api/v2/query/scalar (a scalar_request body), authenticated by the
// DD-API-KEY and DD-APPLICATION-KEY headers, else 403 {"errors": [...]}
// (this one echoes the key it refused, to test that Ramp masks it). A
// query containing "passing" measures 0.005, any other 0.5; a request
// that breaks the protocol is answered 400 and fails the test.
func datadogServer(t *testing.T, apiKey, appKey string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("DD-API-KEY") != apiKey || r.Header.Get("DD-APPLICATION-KEY") != appKey {
			w.WriteHeader(http.StatusForbidden)
			_ = json.NewEncoder(w).Encode(map[string]any{"errors": []string{"Forbidden: API key " + r.Header.Get("DD-API-KEY") + " is invalid"}})
			return
		}
		query, bad := "", ""
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/api/v1/query":
			from, err1 := strconv.ParseInt(r.URL.Query().Get("from"), 10, 64)
			to, err2 := strconv.ParseInt(r.URL.Query().Get("to"), 10, 64)
			if query = r.URL.Query().Get("query"); err1 != nil || err2 != nil || to-from != 300 || query == "" {
				bad = "v1: from/to/query " + r.URL.RawQuery
			}
		case r.Method == http.MethodPost && r.URL.Path == "/api/v2/query/scalar":
			var body struct {
				Data struct {
					Type       string `json:"type"`
					Attributes struct {
						From, To int64
						Queries  []struct{ DataSource, Name, Query, Aggregator string } `json:"queries"`
						Formulas []struct{ Formula string }                             `json:"formulas"`
					} `json:"attributes"`
				} `json:"data"`
			}
			b, _ := io.ReadAll(r.Body)
			a := &body.Data.Attributes
			if json.Unmarshal(b, &body) != nil || body.Data.Type != "scalar_request" || a.To-a.From != 300_000 || len(a.Queries) == 0 {
				bad = "v2 body " + string(b)
			} else {
				query = a.Queries[0].Query
			}
		default:
			bad = r.Method + " " + r.URL.Path
		}
		if bad != "" {
			t.Errorf("datadog: request breaks the protocol: %s", bad)
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"errors":["bad request"]}`)
			return
		}
		value := 0.5
		if strings.Contains(query, "passing") {
			value = 0.005
		}
		if r.Method == http.MethodGet {
			_, _ = fmt.Fprintf(w, `{"status":"ok","res_type":"time_series","series":[{"pointlist":[[%d,%g]]}]}`, time.Now().UnixMilli(), value)
			return
		}
		_, _ = fmt.Fprintf(w, `{"data":{"type":"scalar_response","attributes":{"columns":[{"name":"a","type":"number","values":[%g]}]}}}`, value)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestProviderDatadog: upstream's documented Datadog template (v2, error
// rate <= 0.01) is admitted; runs of its metric against a documented-protocol
// Datadog end Successful for a passing value (v2, and v1 through a
// namespaced secretRef), Failed for a failing one, and Error naming the
// refused credentials for wrong keys; no key is in the runs, the Events or
// the controller log.
func TestProviderDatadog(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "prov-dd")
	apiKey, appKey := randomKey("ddapi"), randomKey("ddapp")
	srv := datadogServer(t, apiKey, appKey)
	good, bad := "dd-"+ns, "dd-bad-"+ns
	credentialSecret(t, "", good, map[string]string{"address": srv.URL, "api-key": apiKey, "app-key": appKey})
	wrongAPI := randomKey("wrongapi")
	credentialSecret(t, "", bad, map[string]string{"address": srv.URL, "api-key": wrongAPI, "app-key": appKey})
	credentialSecret(t, ns, "mine", map[string]string{"address": srv.URL, "api-key": apiKey, "app-key": appKey})

	apply(t, ns, `apiVersion: argoproj.io/v1alpha1
kind: AnalysisTemplate
metadata: {name: loq-error-rate}
spec:
  args:
  - name: service-name
  metrics:
  - name: error-rate
    interval: 5m
    successCondition: result <= 0.01
    failureLimit: 3
    provider:
      datadog:
        apiVersion: v2
        interval: 5m
        query: |
          sum:requests.error.rate{service:{{args.service-name}}}
`)
	run := func(name, provider string) string {
		return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: AnalysisRun
metadata: {name: %s}
spec:
  metrics:
  - name: error-rate
    successCondition: result <= 0.01
    consecutiveErrorLimit: 0
    provider:
      datadog:
%s`, name, provider)
	}
	apply(t, ns, run("passing", fmt.Sprintf("        apiVersion: v2\n        interval: 5m\n        secretRef: {name: %s}\n        query: sum:requests.error.rate{service:passing}\n", good)))
	apply(t, ns, run("namespaced", "        secretRef: {name: mine, namespaced: true}\n        query: sum:requests.error.rate{service:passing}\n"))
	apply(t, ns, run("failing", fmt.Sprintf("        apiVersion: v2\n        secretRef: {name: %s}\n        queries: {a: 'sum:requests.error.rate{service:failing}'}\n", good)))
	apply(t, ns, run("bad-keys", fmt.Sprintf("        secretRef: {name: %s}\n        query: sum:requests.error.rate{service:passing}\n", bad)))

	expectRuns(t, ns, 60*time.Second, map[string]runOutcome{
		"passing": {rampv1.AnalysisPhaseSuccessful, "0.005"}, "namespaced": {rampv1.AnalysisPhaseSuccessful, "0.005"},
		"failing": {rampv1.AnalysisPhaseFailed, "0.5"},
	})
	ar := waitRun(t, ns, "bad-keys", 60*time.Second, rampv1.AnalysisPhaseError)
	if msg := measurementMessage(ar, "error-rate"); !strings.Contains(msg, "HTTP 403 Forbidden: credentials refused") || !strings.Contains(msg, "*****") {
		t.Errorf("bad-keys: message %q, want the refusal with the echoed key masked", msg)
	}
	assertNoSecretLeak(t, ns, env.controller.logPath, apiKey, appKey, wrongAPI)
}
