//go:build e2e

package e2e

import (
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/influxdb/influxdbtest"
)

// influxRuns applies a template with the metric spec and, for each
// application, a run of it; the last run, "denied", uses profile denied
// with consecutiveErrorLimit 0 (so that the first credentials error ends
// it), and all wait for their verdicts: good Successful, bad Failed,
// denied Error naming the refused credentials.
func influxRuns(t *testing.T, ns string, metric func(profile string) string, profile, denied string) {
	t.Helper()
	manifest := templateWithRuns("error-rate", "application-name", "  metrics:\n"+metric(profile), "good", "bad")
	manifest += "---\napiVersion: argoproj.io/v1alpha1\nkind: AnalysisRun\nmetadata: {name: denied}\nspec:\n  args:\n  - {name: application-name, value: good}\n  metrics:\n" +
		metric(denied) + "    consecutiveErrorLimit: 0\n"
	apply(t, ns, manifest)
	good := waitRun(t, ns, "good", 60*time.Second, rampv1.AnalysisPhaseSuccessful)
	if m := good.Status.MetricResults[0].Measurements; len(m) != 1 || m[0].Value != "[0.005]" {
		t.Errorf("good: measurements %+v, want [0.005]", m)
	}
	bad := waitRun(t, ns, "bad", 60*time.Second, rampv1.AnalysisPhaseFailed)
	if m := bad.Status.MetricResults[0].Measurements; len(m) != 1 || m[0].Value != "[0.5]" {
		t.Errorf("bad: measurements %+v, want [0.5]", m)
	}
	run := waitRun(t, ns, "denied", 60*time.Second, rampv1.AnalysisPhaseError)
	if m := run.Status.MetricResults[0].Measurements; len(m) != 1 || !strings.Contains(m[0].Message, "HTTP 401 Unauthorized: credentials refused") {
		t.Errorf("denied: measurements %+v, want an error naming the refused credentials", m)
	}
}

// TestProviderInfluxdbFlux runs upstream's documented influxdb template
// (Flux, a profile Secret with address, authToken and org) against an
// InfluxDB 2.x query endpoint that checks the request as InfluxData
// documents it; a profile with a wrong token ends in Error. The token
// appears in no run, Event or controller log line.
func TestProviderInfluxdbFlux(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "influx-flux")
	token := fmt.Sprintf("fluxTok-%08x-Zq81", rand.Uint32())
	fake := &influxdbtest.Server{Token: token, Org: "my-org", Answer: func(q string) (string, bool) {
		switch {
		case strings.Contains(q, `== "good"`):
			return influxdbtest.Table("double", "0.005"), true
		case strings.Contains(q, `== "bad"`):
			return influxdbtest.Table("double", "0.5"), true
		}
		return "", true
	}}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	profile, denied := "influxdb-"+ns, "influxdb-denied-"+ns
	credentialSecret(t, "", profile, map[string]string{"address": srv.URL, "authToken": token, "org": "my-org"})
	credentialSecret(t, "", denied, map[string]string{"address": srv.URL, "authToken": "wrong-" + token, "org": "my-org"})
	// Upstream's example (docs/analysis/influxdb.md), its profile named.
	influxRuns(t, ns, func(profile string) string {
		return fmt.Sprintf(`  - name: error-rate
    successCondition: result[0] <= 0.01
    provider:
      influxdb:
        profile: %s
        query: |
          from(bucket: "app_istio")
            |> range(start: -15m)
            |> filter(fn: (r) => r["destination_workload"] == "{{ args.application-name }}")
            |> filter(fn: (r) => r["_measurement"] == "istio:istio_requests_errors_percentage:rate1m:5xx")
`, profile)
	}, profile, denied)
	if q := fake.Queries(); len(q) < 2 || !strings.Contains(q[0], `from(bucket: "app_istio")`) {
		t.Errorf("queries the server answered: %q", q)
	}
	assertNoSecretLeak(t, ns, env.controller.logPath, token)
}

// TestProviderInfluxdbInfluxQL runs the template with queryLanguage:
// influxql (a Ramp extension) against a real InfluxDB 1.x with
// authentication on, fed with line protocol: a profile Secret with
// address, database, username and password; a wrong password ends in
// Error. The password appears in no run, Event or controller log line.
func TestProviderInfluxdbInfluxQL(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "influx-ql")
	password := fmt.Sprintf("qlPw-%08x-Xv3", rand.Uint32())
	ix := startInfluxDB(t, password, "app_istio")
	now := time.Now().Unix()
	ix.Write(t, "app_istio",
		fmt.Sprintf(`istio_requests_errors_percentage,destination_workload=good rate=0.005 %d`, now-2),
		fmt.Sprintf(`istio_requests_errors_percentage,destination_workload=bad rate=0.5 %d`, now-2))
	profile, denied := "influxdb-"+ns, "influxdb-denied-"+ns
	credentialSecret(t, "", profile, map[string]string{"address": ix.url, "database": "app_istio", "username": "admin", "password": password})
	credentialSecret(t, "", denied, map[string]string{"address": ix.url, "database": "app_istio", "username": "admin", "password": "wrong-" + password})
	influxRuns(t, ns, func(profile string) string {
		return fmt.Sprintf(`  - name: error-rate
    successCondition: result[0] <= 0.01
    provider:
      influxdb:
        profile: %s
        queryLanguage: influxql
        query: |
          SELECT mean("rate") FROM "istio_requests_errors_percentage"
          WHERE "destination_workload" = '{{ args.application-name }}' AND time > now() - 15m
`, profile)
	}, profile, denied)
	assertNoSecretLeak(t, ns, env.controller.logPath, password)
}
