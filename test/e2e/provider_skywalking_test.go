//go:build e2e

package e2e

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/skywalking/skywalkingtest"
)

// skywalkingSpec is upstream's documented skywalking AnalysisTemplate spec
// (docs/analysis/skywalking.md), its address pointing at the test's OAP
// endpoint and its interval shortened (5m -> 1s, with a count so that a
// run ends); the query and condition are upstream's.
func skywalkingSpec(address string) string {
	return fmt.Sprintf(`  metrics:
  - name: apdex
    interval: 1s
    count: 4
    successCondition: "all(result.service_apdex.values.values, {asFloat(.value) >= 9900})"
    failureLimit: 3
    provider:
      skywalking:
        interval: 3m
        address: %s
        query: |
          query queryData($duration: Duration!) {
            service_apdex: readMetricsValues(
              condition: { name: "service_apdex", entity: { scope: Service, serviceName: "{{ args.service-name }}", normal: true } },
              duration: $duration) {
                label values { values { value } }
              }
          }
`, address)
}

// TestProviderSkyWalking runs upstream's skywalking template against a
// SkyWalking OAP GraphQL endpoint that checks each request as the protocol
// documents it: a service whose apdex stays >= 9900 passes, one that dips
// fails after failureLimit, and one the OAP answers with a GraphQL error
// ends in Error with that message.
func TestProviderSkyWalking(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "skywalking")
	fake := &skywalkingtest.Server{Answer: func(q string, _ skywalkingtest.Duration) (any, string) {
		switch {
		case strings.Contains(q, `serviceName: "good"`):
			return skywalkingtest.Apdex(9950, 10000, 9900), ""
		case strings.Contains(q, `serviceName: "bad"`):
			return skywalkingtest.Apdex(9950, 8000), ""
		}
		return nil, "Exception while fetching data (/service_apdex) : no such service"
	}}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	apply(t, ns, templateWithRuns("apdex", "service-name", skywalkingSpec(srv.URL), "good", "bad", "none"))

	good := waitRun(t, ns, "good", 60*time.Second, rampv1.AnalysisPhaseSuccessful)
	want := `{"service_apdex":{"label":null,"values":{"values":[{"value":9950},{"value":10000},{"value":9900}]}}}`
	if m := good.Status.MetricResults[0].Measurements; len(m) != 4 || m[0].Value != want {
		t.Errorf("good: measurements %+v, want 4 of %s", m, want)
	}
	waitRun(t, ns, "bad", 60*time.Second, rampv1.AnalysisPhaseFailed)
	none := waitRun(t, ns, "none", 60*time.Second, rampv1.AnalysisPhaseError)
	m := none.Status.MetricResults[0].Measurements
	if len(m) == 0 || !strings.Contains(m[len(m)-1].Message, "skywalking query failed: graphql: Exception while fetching data (/service_apdex) : no such service") {
		t.Errorf("none: measurements %+v, want the OAP's GraphQL error", m)
	}
	// Each window is the template's 3m up to the measurement, at minute steps.
	for _, d := range fake.Durations() {
		start, err1 := time.ParseInLocation("2006-01-02 1504", d.Start, time.Local)
		end, err2 := time.ParseInLocation("2006-01-02 1504", d.End, time.Local)
		if err1 != nil || err2 != nil || end.Sub(start) != 3*time.Minute || time.Since(end) > 5*time.Minute {
			t.Errorf("duration %+v, want the 3 minutes up to now", d)
		}
	}
}
