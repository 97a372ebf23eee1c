package analysisrun

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/web"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
)

// TestIntervalFloor: a web metric measured against a loopback server, its
// run reconciled every 10 ms of a fake clock for 10 s (as a busy stream of
// events would wake it). An interval at or below 0 ends the run in Error
// naming the field before any measurement (upstream admits it and
// measures in a hot loop); a positive interval below a second is measured
// at most once a second.
func TestIntervalFloor(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte(`{"ok": 1}`))
	}))
	defer srv.Close()
	for _, c := range []struct {
		interval string
		count    string // "" for none: measured until terminated
		maxHits  int64
		message  string // the run's Error message, "" for a run still Running
	}{
		{"-1s", "", 0, `Analysis spec invalid: metrics[0]: interval: "-1s" must be positive`},
		{"0s", "count: 100", 0, `Analysis spec invalid: metrics[0]: interval: "0s" must be positive`},
		{"10ms", "", 11, ""},
		{"1ns", "count: 100", 11, ""},
		{"1s", "", 11, ""},
	} {
		t.Run(c.interval+" "+c.count, func(t *testing.T) {
			hits.Store(0)
			run := &rampv1.AnalysisRun{}
			if err := yaml.UnmarshalStrict([]byte(`
metadata: {namespace: ns, name: run, uid: run-uid}
spec:
  metrics:
  - name: ok
    interval: "`+c.interval+`"
    `+c.count+`
    successCondition: result.ok == 1
    provider:
      web: {url: "`+srv.URL+`", jsonPath: "{$}"}
`), run); err != nil {
				t.Fatal(err)
			}
			run.CreationTimestamp = metav1.NewTime(controllertest.Start)
			env := controllertest.New(t, nil, run)
			reg := provider.NewRegistry()
			if err := reg.Register("web", web.New()); err != nil {
				t.Fatal(err)
			}
			r := &Reconciler{Client: env.Client, Secrets: env.Client, Providers: reg, Clock: env.Clock, Evaluator: analysis.NewEvaluator()}
			for env.Clock.Since(controllertest.Start) < 10*time.Second {
				if _, err := pass(r); err != nil {
					t.Fatal(err)
				}
				env.Clock.Step(10 * time.Millisecond)
			}
			if got := hits.Load(); got > c.maxHits {
				t.Errorf("%d measurements in 10 s, want at most %d", got, c.maxHits)
			}
			got := &rampv1.AnalysisRun{}
			if err := env.API.Get(context.Background(), key("run"), got); err != nil {
				t.Fatal(err)
			}
			switch {
			case c.message != "" && (got.Status.Phase != rampv1.AnalysisPhaseError || got.Status.Message != c.message):
				t.Errorf("run %s %q, want Error %q", got.Status.Phase, got.Status.Message, c.message)
			case c.message == "" && (got.Status.Phase != rampv1.AnalysisPhaseRunning || hits.Load() < 9):
				t.Errorf("run %s %q after %d measurements, want Running, measured about once a second", got.Status.Phase, got.Status.Message, hits.Load())
			}
			if strings.Contains(got.Status.Message, srv.URL) {
				t.Errorf("message names the URL: %q", got.Status.Message)
			}
		})
	}
}
