//go:build e2e

package e2e

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// judgeRun is an AnalysisRun judging the canary's latency against the
// baseline's with the built-in judge over the last 18 s of 1 s samples; its
// single measurement waits 18 s (initialDelay) so that the window is full.
const judgeRun = `apiVersion: argoproj.io/v1alpha1
kind: AnalysisRun
metadata: {name: judge}
spec:
  args:
  - {name: baseline-hash, value: base1234}
  - {name: canary-hash, value: cana5678}
  metrics:
  - name: compare
    initialDelay: 18s
    provider:
      judge:
        address: %q
        baseline: "{{args.baseline-hash}}"
        canary: "{{args.canary-hash}}"
        lookback: 18s
        step: 1s
        confidence: 0.95
        threshold: {pass: 90, marginal: 50}
        metrics:
        - name: latency
          query: judge_latency_seconds{namespace=%q, pod_template_hash="{{group}}"}
          direction: increase
          effectSize: 0.1
`

// TestJudge: a real Prometheus scrapes, every second, a baseline and a
// canary latency drawn afresh (Gaussian, 5% noise) for every scrape; a
// canary 20% slower fails the judgement (verdict High), an equal one
// passes with score 100.
func TestJudge(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		canary float64 // mean latency; the baseline's is 0.1
		phase  rampv1.AnalysisPhase
		score  string
		want   string
	}{
		{"equal", 0.1, rampv1.AnalysisPhaseSuccessful, "100", "Pass"},
		{"slower", 0.12, rampv1.AnalysisPhaseFailed, "0", "High"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := testPrometheus(t)
			ns := namespace(t, "judge-"+c.name)
			serveLatency(t, p, ns, 0.05, map[string]float64{"base1234": 0.1, "cana5678": c.canary})
			p.WaitQuery(t, fmt.Sprintf(`count(judge_latency_seconds{namespace=%q})`, ns), "2")
			apply(t, ns, fmt.Sprintf(judgeRun, p.URL(), ns))
			ar := waitRun(t, ns, "judge", 90*time.Second, c.phase)
			ms := ar.Status.MetricResults[0].Measurements
			if len(ms) != 1 {
				t.Fatalf("%d measurements, want 1", len(ms))
			}
			m := ms[0]
			t.Logf("value %s, message %q, metadata %v", m.Value, m.Message, m.Metadata)
			if m.Value != c.score || m.Metadata["latency.verdict"] != c.want {
				t.Errorf("score %s verdict %q, want %s %s", m.Value, m.Metadata["latency.verdict"], c.score, c.want)
			}
			for _, k := range []string{"latency.n-baseline", "latency.n-canary"} {
				if n, err := strconv.Atoi(m.Metadata[k]); err != nil || n < 10 {
					t.Errorf("%s = %q, want the window's samples (>= 10)", k, m.Metadata[k])
				}
			}
		})
	}
}

// TestJudgeNoData: when neither group has a sample (no series for the
// hashes), the measurement is an Error saying so, and with
// consecutiveErrorLimit 0 the run ends in Error at once.
func TestJudgeNoData(t *testing.T) {
	t.Parallel()
	p := testPrometheus(t)
	ns := namespace(t, "judge-nodata")
	apply(t, ns, strings.Replace(fmt.Sprintf(judgeRun, p.URL(), ns), "initialDelay: 18s", "consecutiveErrorLimit: 0", 1))
	ar := waitRun(t, ns, "judge", 30*time.Second, rampv1.AnalysisPhaseError)
	const want = `metric "compare": judge: no data: latency NoData (baseline 0, canary 0 samples)`
	if m := ar.Status.MetricResults[0].Measurements[0]; m.Message != want {
		t.Errorf("measurement message %q, want %q", m.Message, want)
	}
}

// serveLatency makes the exporter serve judge_latency_seconds for each
// pod-template hash, redrawn every 100 ms (so every 1 s scrape sees a new
// draw) around the hash's mean with Gaussian noise (0.05: 5%), until the
// test ends.
func serveLatency(t testing.TB, p *promEnv, ns string, noise float64, means map[string]float64) {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 21))
	series := map[string]float64{}
	for hash, mean := range means {
		series[fmt.Sprintf(`judge_latency_seconds{namespace=%q,pod_template_hash=%q}`, ns, hash)] = mean
	}
	draw := func() {
		for s, mean := range series {
			p.Set(s, mean*(1+noise*rng.NormFloat64()))
		}
	}
	draw()
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				draw()
			}
		}
	}()
	t.Cleanup(func() {
		close(done)
		<-stopped
		for s := range series {
			p.Delete(s)
		}
	})
}
