//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// kayentaServer serves Kayenta's documented standalone canary API: GET
// /canaryConfig lists the config "my-test" (id cfg-1) for application
// guestbook; POST /canary/cfg-1 with the account parameters and a
// {scopes, thresholds} body starts an execution; GET /canary/{id} reports
// it incomplete on the first read and complete on the next, with the score
// 95 when the experiment scope contains "passing", 80 for "marginal", else
// 50. A request that breaks the protocol fails the test.
func kayentaServer(t *testing.T) *httptest.Server {
	var mu sync.Mutex
	scores, reads := map[string]float64{}, map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		q := r.URL.Query()
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/canaryConfig" && q.Get("application") == "guestbook" && q.Get("configurationAccountName") == "intuit-kayenta":
			_, _ = io.WriteString(w, `[{"id":"cfg-1","name":"my-test","applications":["guestbook"]}]`)
		case r.Method == http.MethodPost && r.URL.Path == "/canary/cfg-1" && q.Get("application") == "guestbook" && q.Get("metricsAccountName") == "wavefront-prod" &&
			q.Get("configurationAccountName") == "intuit-kayenta" && q.Get("storageAccountName") == "intuit-kayenta":
			var body struct {
				Scopes map[string]struct {
					ControlScope, ExperimentScope struct{ Scope string }
				} `json:"scopes"`
				Thresholds struct{ Pass, Marginal int } `json:"thresholds"`
			}
			b, _ := io.ReadAll(r.Body)
			if json.Unmarshal(b, &body) != nil || len(body.Scopes) != 1 || body.Thresholds.Pass != 90 || body.Thresholds.Marginal != 75 {
				t.Errorf("kayenta: execution body %s", b)
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			id := fmt.Sprintf("exec-%d", len(scores)+1)
			scores[id] = 50
			for _, s := range body.Scopes {
				switch {
				case strings.Contains(s.ExperimentScope.Scope, "passing"):
					scores[id] = 95
				case strings.Contains(s.ExperimentScope.Scope, "marginal"):
					scores[id] = 80
				}
			}
			_, _ = fmt.Fprintf(w, `{"canaryExecutionId":%q}`, id)
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/canary/exec-"):
			id := strings.TrimPrefix(r.URL.Path, "/canary/")
			score, ok := scores[id]
			if !ok {
				w.WriteHeader(http.StatusNotFound)
				return
			}
			if reads[id]++; reads[id] == 1 {
				_, _ = io.WriteString(w, `{"complete":false,"status":"running"}`)
				return
			}
			_, _ = fmt.Fprintf(w, `{"complete":true,"status":"succeeded","result":{"judgeResult":{"score":{"score":%g,"classification":"Pass"}}}}`, score)
		default:
			t.Errorf("kayenta: request breaks the protocol: %s %s", r.Method, r.URL)
			w.WriteHeader(http.StatusBadRequest)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestProviderKayenta: upstream's documented Kayenta template (with the
// region and account fields its CRD requires, which the doc's example
// lacks) is admitted;
// runs of its metric against a documented-protocol Kayenta stay Running
// while the execution is incomplete (the execution id in the measurement's
// metadata) and end Successful for a score at or above threshold.pass,
// Inconclusive between marginal and pass, Failed below marginal; an
// unknown canary config is an Error naming it.
func TestProviderKayenta(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "prov-kay")
	srv := kayentaServer(t)
	scope := func(s string) string {
		return fmt.Sprintf("{scope: %q, region: us-west-2, step: 60, start: \"2026-01-01T00:00:00Z\", end: \"2026-01-01T00:10:00Z\"}", s)
	}
	apply(t, ns, `apiVersion: argoproj.io/v1alpha1
kind: AnalysisTemplate
metadata: {name: my-kayenta-analysis}
spec:
  args:
  - name: start-time
  - name: end-time
  - name: stable-hash
  - name: canary-hash
  metrics:
  - name: mann-whitney
    provider:
      kayenta:
        address: http://kayenta.kayenta.svc.cluster.local:8090
        application: guestbook
        canaryConfigName: my-test
        metricsAccountName: wavefront-prod
        configurationAccountName: intuit-kayenta
        storageAccountName: intuit-kayenta
        threshold: {pass: 90, marginal: 75}
        scopes:
        - name: default
          controlScope: {scope: "app=guestbook and rollouts-pod-template-hash={{args.stable-hash}}", region: us-west-2, step: 60, start: "{{args.start-time}}", end: "{{args.end-time}}"}
          experimentScope: {scope: "app=guestbook and rollouts-pod-template-hash={{args.canary-hash}}", region: us-west-2, step: 60, start: "{{args.start-time}}", end: "{{args.end-time}}"}
`)
	run := func(name, config, canary string) string {
		return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: AnalysisRun
metadata: {name: %s}
spec:
  metrics:
  - name: mann-whitney
    consecutiveErrorLimit: 0
    provider:
      kayenta:
        address: %s
        application: guestbook
        canaryConfigName: %s
        metricsAccountName: wavefront-prod
        configurationAccountName: intuit-kayenta
        storageAccountName: intuit-kayenta
        threshold: {pass: 90, marginal: 75}
        scopes:
        - {name: default, controlScope: %s, experimentScope: %s}
`, name, srv.URL, config, scope("app=guestbook and hash=stable"), scope("app=guestbook and hash="+canary))
	}
	apply(t, ns, run("passing", "my-test", "passing"))
	apply(t, ns, run("marginal", "my-test", "marginal"))
	apply(t, ns, run("failing", "my-test", "failing"))
	apply(t, ns, run("no-config", "nope", "passing"))

	waitRun(t, ns, "passing", 30*time.Second, rampv1.AnalysisPhaseRunning)
	eventually(t, 30*time.Second, "passing's measurement Running with its execution id", func() error {
		ar, err := getRun(ns, "passing")
		if err != nil {
			return err
		}
		if len(ar.Status.MetricResults) == 0 || len(ar.Status.MetricResults[0].Measurements) == 0 {
			return fmt.Errorf("no measurement yet")
		}
		if m := ar.Status.MetricResults[0].Measurements[0]; m.Phase != rampv1.AnalysisPhaseRunning || !strings.HasPrefix(m.Metadata["canaryExecutionId"], "exec-") || m.ResumeAt == nil {
			return fmt.Errorf("measurement %+v", m)
		}
		return nil
	})
	runs := expectRuns(t, ns, 90*time.Second, map[string]runOutcome{
		"passing": {rampv1.AnalysisPhaseSuccessful, "95"}, "marginal": {rampv1.AnalysisPhaseInconclusive, "80"}, "failing": {rampv1.AnalysisPhaseFailed, "50"},
	})
	for name, ar := range runs {
		if m := ar.Status.MetricResults[0].Measurements[0]; m.Phase != ar.Status.Phase {
			t.Errorf("%s: measurement %s, want the score's verdict %s", name, m.Phase, ar.Status.Phase)
		}
	}
	ar := waitRun(t, ns, "no-config", 30*time.Second, rampv1.AnalysisPhaseError)
	if msg := measurementMessage(ar, "mann-whitney"); !strings.Contains(msg, `no canary config named "nope"`) {
		t.Errorf("no-config: message %q", msg)
	}
}
