//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// graphiteSpec is upstream's documented graphite AnalysisTemplate spec
// (docs/analysis/graphite.md), its address pointing at the test's
// graphite-web and its interval shortened (5m -> 1s, with a count so that a
// run ends) for the suite; the query is upstream's, unchanged.
func graphiteSpec(address string) string {
	return fmt.Sprintf(`  metrics:
  - name: success-rate
    interval: 1s
    count: 4
    successCondition: result[0] >= 90.000000
    failureLimit: 3
    provider:
      graphite:
        address: %s
        query: |
          target=summarize(
            asPercent(
              sumSeries(
                stats.timers.httpServerRequests.app.{{args.service-name}}.exception.*.method.*.outcome.{CLIENT_ERROR,INFORMATIONAL,REDIRECTION,SUCCESS}.status.*.uri.*.count
              ),
              sumSeries(
                stats.timers.httpServerRequests.app.{{args.service-name}}.exception.*.method.*.outcome.*.status.*.uri.*.count
              )
            ),
            '5min',
            'avg'
          )
`, address)
}

// TestProviderGraphite runs upstream's graphite template against a real
// Graphite (carbon-cache + graphite-web) fed with carbon's plaintext
// protocol: a service answering 95% of requests well passes (>= 90), one
// at 50% fails after failureLimit, and one without data ends in Error with
// "no values found" (as upstream).
func TestProviderGraphite(t *testing.T) {
	t.Parallel()
	g := startGraphite(t)
	ns := namespace(t, "graphite")
	now := time.Now().Unix()
	var lines []string
	for svc, ok := range map[string]int{"good": 95, "bad": 50} {
		for _, outcome := range []struct {
			name  string
			count int
		}{{"SUCCESS", ok}, {"SERVER_ERROR", 100 - ok}} {
			path := fmt.Sprintf("stats.timers.httpServerRequests.app.%s.exception.None.method.GET.outcome.%s.status.200.uri.root.count", svc, outcome.name)
			for ago := int64(3); ago >= 1; ago-- {
				lines = append(lines, fmt.Sprintf("%s %d %d", path, outcome.count, now-ago))
			}
		}
	}
	g.Write(t, lines...)
	g.WaitValue(t, "sumSeries(stats.timers.httpServerRequests.app.good.exception.*.method.*.outcome.*.status.*.uri.*.count)", "100.0")
	g.WaitValue(t, "sumSeries(stats.timers.httpServerRequests.app.bad.exception.*.method.*.outcome.*.status.*.uri.*.count)", "100.0")

	apply(t, ns, templateWithRuns("success-rate", "service-name", graphiteSpec(g.url), "good", "bad", "none"))

	good := waitRun(t, ns, "good", 60*time.Second, rampv1.AnalysisPhaseSuccessful)
	if m := good.Status.MetricResults[0].Measurements; len(m) != 4 || m[0].Value != "[95.000000]" {
		t.Errorf("good: measurements %+v, want 4 of [95.000000]", m)
	}
	bad := waitRun(t, ns, "bad", 60*time.Second, rampv1.AnalysisPhaseFailed)
	if m := bad.Status.MetricResults[0].Measurements; len(m) == 0 || m[0].Value != "[50.000000]" {
		t.Errorf("bad: measurements %+v, want [50.000000]", m)
	}
	none := waitRun(t, ns, "none", 60*time.Second, rampv1.AnalysisPhaseError)
	m := none.Status.MetricResults[0].Measurements
	if len(m) == 0 || m[len(m)-1].Phase != rampv1.AnalysisPhaseError || !strings.Contains(m[len(m)-1].Message, "graphite query failed: no values found") {
		t.Errorf("none: measurements %+v, want errors saying no values found", m)
	}
}
