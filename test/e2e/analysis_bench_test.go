//go:build e2e

package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// BenchmarkAnalysisInterval measures how precisely an AnalysisRun keeps its
// interval (web metric, interval 2s, count 5, on a controller of its own):
// the gaps between the requests the metric's server receives, and the API
// writes the controller made per measurement. It prints figures and asserts
// no timing.
func BenchmarkAnalysisInterval(b *testing.B) {
	ns := namespace(b, "bench-ana")
	p := ownController(b, ns, ns)
	var mu sync.Mutex
	var hits []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, time.Now())
		mu.Unlock()
		_, _ = fmt.Fprint(w, `{"ok": true}`) // a failed write is the provider's error to report
	}))
	defer srv.Close()
	const count, interval = 5, 2 * time.Second
	for i := 0; i < b.N; i++ {
		mu.Lock()
		hits = nil
		mu.Unlock()
		name := fmt.Sprintf("interval-%d", i)
		before := restRequests(b, p)
		apply(b, ns, fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: AnalysisRun
metadata:
  name: %s
  labels: {%s: %q}
spec:
  metrics:
  - name: ok
    interval: 2s
    count: %d
    successCondition: result.ok
    provider: {web: {url: %q}}
`, name, instanceLabel, ns, count, srv.URL))
		b.StopTimer()
		eventually(b, time.Minute, "run Successful", func() error {
			ar, err := getRun(ns, name)
			if err != nil {
				return err
			}
			if ar.Status.Phase != rampv1.AnalysisPhaseSuccessful {
				return fmt.Errorf("phase %q", ar.Status.Phase)
			}
			return nil
		})
		w, _ := requestDelta(before, restRequests(b, p))
		mu.Lock()
		var minGap, maxGap time.Duration
		for j := 1; j < len(hits); j++ {
			gap := hits[j].Sub(hits[j-1])
			if j == 1 || gap < minGap {
				minGap = gap
			}
			maxGap = max(maxGap, gap)
		}
		n := len(hits)
		mu.Unlock()
		b.Logf("run %s: %d measurements, gaps between requests %s..%s (interval %s; after a controller restart up to 1s more, as status times have second resolution), %.0f API writes (%.1f per measurement)",
			name, n, minGap.Round(time.Millisecond), maxGap.Round(time.Millisecond), interval, w, w/float64(max(n, 1)))
		b.ReportMetric(maxGap.Seconds(), "max-gap-s")
		b.ReportMetric(w/float64(max(n, 1)), "api-writes/measurement")
	}
}
