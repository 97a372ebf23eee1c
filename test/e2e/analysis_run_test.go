//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// webServer serves JSON on loopback: /rate, /echo (the Authorization header
// back) and /garbage (not JSON); every answer but /garbage needs the token.
func webServer(t *testing.T, token string, rate *float64) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/garbage" {
			_, _ = fmt.Fprint(w, "<html>oops</html>") // a failed write is the provider's error to report
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"rate": *rate, "auth": r.Header.Get("Authorization")})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestAnalysisRunWebSecret: a web metric authenticated with a Secret
// argument measures count times at its interval and succeeds; the Secret's
// value appears nowhere: not in the run's status (a metric that echoes it
// stores "*****"), not in Events, not in the controller's log.
func TestAnalysisRunWebSecret(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "ana-web")
	const token = "s3cr3t-7f1e9a"
	rate := 0.99
	srv := webServer(t, token, &rate)
	apply(t, ns, fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata: {name: api}
stringData: {token: %s}
---
apiVersion: argoproj.io/v1alpha1
kind: AnalysisRun
metadata: {name: web}
spec:
  args:
  - {name: url, value: %q}
  - name: token
    valueFrom: {secretKeyRef: {name: api, key: token}}
  metrics:
  - name: rate
    interval: 1s
    count: 3
    successCondition: result > 0.95
    provider:
      web:
        url: "{{args.url}}/rate"
        jsonPath: "{$.rate}"
        headers: [{key: Authorization, value: "Bearer {{args.token}}"}]
  - name: echo
    successCondition: result != ""
    provider:
      web:
        url: "{{args.url}}/echo"
        jsonPath: "{$.auth}"
        headers: [{key: Authorization, value: "Bearer {{args.token}}"}]
`, token, srv.URL))
	ar := waitRun(t, ns, "web", 30*time.Second, rampv1.AnalysisPhaseSuccessful)
	res := map[string]rampv1.MetricResult{}
	for _, r := range ar.Status.MetricResults {
		res[r.Name] = r
	}
	if r := res["rate"]; r.Count != 3 || r.Successful != 3 || len(r.Measurements) != 3 || r.Measurements[0].Value != "0.99" {
		t.Errorf("rate: %+v, want 3 successful measurements of 0.99", r)
	} else {
		// One interval apart: stored times have second resolution (startedAt
		// rounded down, finishedAt up), so consecutive stamps may touch, but a
		// measurement never starts in the second before the previous one
		// finished (precision is measured by BenchmarkAnalysisInterval).
		for i := 1; i < 3; i++ {
			if gap := r.Measurements[i].StartedAt.Sub(r.Measurements[i-1].FinishedAt.Time); gap < 0 {
				t.Errorf("measurement %d started %v before the previous one finished", i, -gap)
			}
			if gap := r.Measurements[i].StartedAt.Sub(r.Measurements[i-1].StartedAt.Time); gap < time.Second {
				t.Errorf("measurements %d and %d started %v apart, want >= the 1s interval", i-1, i, gap)
			}
		}
	}
	if r := res["echo"]; len(r.Measurements) != 1 || r.Measurements[0].Value != "Bearer *****" {
		t.Errorf("echo: %+v, want the value stored as \"Bearer *****\"", r)
	}
	raw, _ := json.Marshal(ar)
	if strings.Contains(string(raw), token) {
		t.Errorf("the secret is in the AnalysisRun: %s", raw)
	}
	var events corev1.EventList
	if err := env.client.List(context.Background(), &events, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	raw, _ = json.Marshal(events)
	if strings.Contains(string(raw), token) {
		t.Error("the secret is in an Event")
	}
	if log, err := os.ReadFile(env.controller.logPath); err != nil || strings.Contains(string(log), token) {
		t.Errorf("the secret is in the controller log (%v)", err)
	}
}

// TestAnalysisRunJob: the job provider runs a Job per measurement, owned by
// the run; the Job's outcome is the verdict (the failing Job's pod exits 1
// on kwok), and the worst metric decides the run.
func TestAnalysisRunJob(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "ana-job")
	apply(t, ns, `apiVersion: argoproj.io/v1alpha1
kind: AnalysisRun
metadata: {name: jobs}
spec:
  metrics:
  - name: passes
    provider:
      job:
        spec:
          backoffLimit: 0
          template:
            spec:
              restartPolicy: Never
              containers: [{name: check, image: registry.example/check:v1}]
  - name: fails
    provider:
      job:
        metadata: {labels: {team: web}}
        spec:
          backoffLimit: 0
          template:
            metadata: {annotations: {test.ramp.dev/exit-code: "1"}}
            spec:
              restartPolicy: Never
              containers: [{name: check, image: registry.example/check:v1}]
`)
	ar := waitRun(t, ns, "jobs", 60*time.Second, rampv1.AnalysisPhaseFailed)
	phases := map[string]rampv1.AnalysisPhase{}
	for _, r := range ar.Status.MetricResults {
		phases[r.Name] = r.Phase
	}
	if phases["passes"] != rampv1.AnalysisPhaseSuccessful || phases["fails"] != rampv1.AnalysisPhaseFailed {
		t.Errorf("metric phases %v, want passes Successful and fails Failed", phases)
	}
	var jobs batchv1.JobList
	if err := env.client.List(context.Background(), &jobs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	// The failed metric ends the run: a Job still running for the other
	// metric is deleted (terminated), so only the failed Job must remain.
	failed := false
	for _, j := range jobs.Items {
		if j.Labels["analysisrun.argoproj.io/metric-name"] == "fails" && j.Labels["team"] == "web" {
			failed = true
		}
		if ref := metav1.GetControllerOf(&j); ref == nil || ref.UID != ar.UID || !strings.HasPrefix(j.Name, string(ar.UID)+".") {
			t.Errorf("Job %s is not named after and owned by run %s", j.Name, ar.UID)
		}
	}
	if !failed {
		t.Errorf("no Job of metric fails (with the template's labels) among %d", len(jobs.Items))
	}
}

// TestAnalysisRunBadInput: each bad run ends Error with a message that
// names the metric and the cause; the controller keeps running.
func TestAnalysisRunBadInput(t *testing.T) {
	t.Parallel()
	p := testPrometheus(t)
	ns := namespace(t, "ana-bad")
	rate := 1.0
	srv := webServer(t, "x", &rate)
	for _, tc := range []struct{ name, metric, want string }{
		{"no-compile", fmt.Sprintf(`successCondition: result[0] = 0
    provider: {prometheus: {address: %q, query: vector(1)}}`, p.URL()), `metric "m": compiling successCondition "result[0] = 0"`},
		{"unreachable", `successCondition: result[0] > 0
    provider: {prometheus: {address: "http://127.0.0.1:1", query: vector(1)}}`, `metric "m": prometheus`},
		{"undefined-arg", fmt.Sprintf(`successCondition: result[0] > 0
    provider: {prometheus: {address: %q, query: "{{args.nope}}"}}`, p.URL()), `metric "m": argument "nope" is not defined`},
		{"garbage", fmt.Sprintf(`successCondition: result > 0
    provider: {web: {url: %q}}`, srv.URL+"/garbage"), `metric "m": web: the response is not JSON`},
		{"unknown-provider", `provider: {plugin: {example.com/not-installed: {query: "avg:x"}}}`, `example.com/not-installed is not`},
	} {
		apply(t, ns, fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: AnalysisRun
metadata: {name: %s}
spec:
  metrics:
  - name: m
    consecutiveErrorLimit: 0
    %s
`, tc.name, tc.metric))
	}
	for _, tc := range []struct{ name, want string }{
		{"no-compile", `metric "m": compiling successCondition "result[0] = 0"`},
		{"unreachable", `metric "m": prometheus`},
		{"undefined-arg", `metric "m": argument "nope" is not defined`},
		{"garbage", `metric "m": web: the response is not JSON`},
		{"unknown-provider", `example.com/not-installed is not`}, // "supported by this version", or "configured" once plugins run
	} {
		ar := waitRun(t, ns, tc.name, 30*time.Second, rampv1.AnalysisPhaseError)
		if !strings.Contains(ar.Status.Message, tc.want) {
			t.Errorf("%s: message %q, want it to contain %q", tc.name, ar.Status.Message, tc.want)
		}
	}
}
