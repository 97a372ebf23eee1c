package metrics

import (
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestMetricType: upstream's type names, and "Judge" for Ramp's built-in
// judge (an extension upstream has no name for).
func TestMetricType(t *testing.T) {
	for _, c := range []struct {
		p    rampv1.MetricProvider
		want string
	}{
		{rampv1.MetricProvider{Prometheus: &rampv1.PrometheusMetric{}}, "Prometheus"},
		{rampv1.MetricProvider{Judge: &rampv1.JudgeMetric{}}, "Judge"},
		{rampv1.MetricProvider{}, "Unknown Provider"},
	} {
		if got := MetricType(c.p); got != c.want {
			t.Errorf("MetricType(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
}
