//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// nerdGraphServer serves New Relic's documented NerdGraph endpoint for the
// key given: POST /graphql, a JSON {query, variables} body with an NRQL
// operation, the API-Key header; a wrong key is answered as NerdGraph does
// (HTTP 200, a GraphQL error of class UNAUTHORIZED; this one echoes the
// key, to test that Ramp masks it). NRQL containing "passing" gives the row
// {"successRate": 99.5}, any other {"successRate": 80}; a request that
// breaks the protocol fails the test.
func nerdGraphServer(t *testing.T, key string, account int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if got := r.Header.Get("API-Key"); got != key {
			_ = json.NewEncoder(w).Encode(map[string]any{"errors": []map[string]any{{"message": "Invalid API key " + got, "extensions": map[string]string{"errorClass": "UNAUTHORIZED"}}}})
			return
		}
		var body struct {
			Query     string `json:"query"`
			Variables struct {
				AccountID int    `json:"accountId"`
				Query     string `json:"query"`
				Timeout   int    `json:"timeout"`
			} `json:"variables"`
		}
		b, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.URL.Path != "/graphql" || json.Unmarshal(b, &body) != nil ||
			!strings.Contains(body.Query, "nrql(query: $query") || body.Variables.AccountID != account || body.Variables.Timeout < 1 {
			t.Errorf("newrelic: request breaks the protocol: %s %s %s", r.Method, r.URL.Path, b)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		rate := 80.0
		if strings.Contains(body.Variables.Query, "passing") {
			rate = 99.5
		}
		_, _ = fmt.Fprintf(w, `{"data":{"actor":{"account":{"nrql":{"results":[{"successRate":%g}]}}}}}`, rate)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestProviderNewRelic: upstream's documented New Relic template is
// admitted; runs of its metric against a documented-protocol NerdGraph end
// Successful for a passing success rate, Failed for a failing one and
// Error naming the refused key for a wrong one, with the profile Secret
// named by `profile`; the key is in no run, Event or controller log line.
func TestProviderNewRelic(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "prov-nr")
	key, wrong := randomKey("NRAK-"), randomKey("NRAK-wrong")
	srv := nerdGraphServer(t, key, 4321)
	good, bad := "nr-"+ns, "nr-bad-"+ns
	credentialSecret(t, "", good, map[string]string{"personal-api-key": key, "account-id": "4321", "base-url-nerdgraph": srv.URL + "/graphql"})
	credentialSecret(t, "", bad, map[string]string{"personal-api-key": wrong, "account-id": "4321", "base-url-nerdgraph": srv.URL + "/graphql"})

	apply(t, ns, `apiVersion: argoproj.io/v1alpha1
kind: AnalysisTemplate
metadata: {name: success-rate}
spec:
  args:
  - name: application-name
  metrics:
  - name: success-rate
    successCondition: result.successRate >= 95
    provider:
      newRelic:
        profile: my-newrelic-secret
        query: |
          FROM Transaction SELECT percentage(count(*), WHERE httpResponseCode != 500) as successRate where appName = '{{ args.application-name }}'
`)
	run := func(name, profile, app string) string {
		return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: AnalysisRun
metadata: {name: %s}
spec:
  metrics:
  - name: success-rate
    successCondition: result.successRate >= 95
    consecutiveErrorLimit: 0
    provider:
      newRelic:
        profile: %s
        query: FROM Transaction SELECT percentage(count(*), WHERE httpResponseCode != 500) as successRate where appName = '%s'
`, name, profile, app)
	}
	apply(t, ns, run("passing", good, "passing"))
	apply(t, ns, run("failing", good, "failing"))
	apply(t, ns, run("bad-key", bad, "passing"))
	expectRuns(t, ns, 60*time.Second, map[string]runOutcome{
		"passing": {rampv1.AnalysisPhaseSuccessful, `{"successRate":99.5}`}, "failing": {rampv1.AnalysisPhaseFailed, `{"successRate":80}`},
	})
	ar := waitRun(t, ns, "bad-key", 60*time.Second, rampv1.AnalysisPhaseError)
	if msg := measurementMessage(ar, "success-rate"); !strings.Contains(msg, "UNAUTHORIZED (credentials refused): Invalid API key *****") {
		t.Errorf("bad-key: message %q, want the refusal with the echoed key masked", msg)
	}
	assertNoSecretLeak(t, ns, env.controller.logPath, key, wrong)
}
