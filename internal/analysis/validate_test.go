package analysis

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func TestValidateMetrics(t *testing.T) {
	named := func(n string) func(*rampv1.Metric) { return func(m *rampv1.Metric) { m.Name = n } }
	provider := func(p rampv1.MetricProvider) func(*rampv1.Metric) { return func(m *rampv1.Metric) { m.Provider = p } }
	for _, c := range []struct {
		name    string
		metrics []rampv1.Metric
		want    string // "" for valid
	}{
		{"no metrics", nil, "no metrics specified"},
		{"one metric", []rampv1.Metric{spec()}, ""},
		{"duplicate names", []rampv1.Metric{spec(), spec(named("n")), spec()}, "metrics[2]: duplicate name 'm'"},
		{"seed 003 canary: no count, failureLimit 3", []rampv1.Metric{spec(interval("5m"), failureLimit(3))}, ""},
		{"seed 003 blue-green: count 2 < failureLimit 3", []rampv1.Metric{spec(interval("3s"), count(2), failureLimit(3))},
			"metrics[0]: count must be >= failureLimit"},
		{"count = failureLimit", []rampv1.Metric{spec(interval("3s"), count(3), failureLimit(3))}, ""},
		{"count 0 ignores limits", []rampv1.Metric{spec(interval("3s"), count(0), failureLimit(3))}, ""},
		{"count < inconclusiveLimit", []rampv1.Metric{spec(interval("1m"), count(1), inconclusiveLimit(2))},
			"count must be >= inconclusiveLimit"},
		{"count > 1 without interval", []rampv1.Metric{spec(count(3), failureLimit(1))}, "interval must be specified when count > 1"},
		{"count 1 without interval", []rampv1.Metric{spec(count(1))}, ""},
		{"bad interval", []rampv1.Metric{spec(interval("5 minutes"))}, "invalid interval string"},
		{"bad initialDelay", []rampv1.Metric{spec(delay("later"))}, "invalid initialDelay string"},
		// an interval at or below 0 would measure in a hot loop (upstream
		// admits it): an Error naming the field, unless one measurement is all
		{"negative interval", []rampv1.Metric{spec(interval("-1s"))}, `metrics[0]: interval: "-1s" must be positive`},
		{"zero interval, count 3", []rampv1.Metric{spec(interval("0s"), count(3))}, `metrics[0]: interval: "0s" must be positive`},
		{"zero interval, count 0 (until terminated)", []rampv1.Metric{spec(interval("0"), count(0))}, `metrics[0]: interval: "0" must be positive`},
		{"negative interval, count 1: never waited", []rampv1.Metric{spec(interval("-1s"), count(1))}, ""},
		{"interval below a second: measured once a second", []rampv1.Metric{spec(interval("1ms"))}, ""},
		{"failureLimit -2", []rampv1.Metric{spec(failureLimit(-2))}, "failureLimit must be >= -1"},
		{"inconclusiveLimit -1", []rampv1.Metric{spec(inconclusiveLimit(-1))}, "inconclusiveLimit must be >= 0"},
		{"consecutiveErrorLimit -1", []rampv1.Metric{spec(errorLimit(-1))}, "consecutiveErrorLimit must be >= 0"},
		{"consecutiveSuccessLimit -1", []rampv1.Metric{spec(successLimit(-1))}, "consecutiveSuccessLimit must be >= 0"},
		{"both limits disabled", []rampv1.Metric{spec(failureLimit(-1))}, "both disabled"},
		{"only consecutiveSuccessLimit", []rampv1.Metric{spec(interval("1m"), failureLimit(-1), successLimit(2))}, ""},
		{"unresolved placeholder", []rampv1.Metric{spec(func(m *rampv1.Metric) { m.Count = str("{{args.count}}") })},
			`metrics[0]: metric "m": count: "{{args.count}}" is not an integer`},
		{"string limit", []rampv1.Metric{spec(interval("1m"), count(5), func(m *rampv1.Metric) { m.FailureLimit = str("6") })},
			"count must be >= failureLimit"},
		{"no provider", []rampv1.Metric{spec(provider(rampv1.MetricProvider{}))}, "no provider specified"},
		{"two providers", []rampv1.Metric{spec(provider(rampv1.MetricProvider{
			Prometheus: &rampv1.PrometheusMetric{}, Web: &rampv1.WebMetric{}}))}, "multiple providers specified"},
		{"plugin provider", []rampv1.Metric{spec(provider(rampv1.MetricProvider{
			Plugin: map[string]apiextensionsv1.JSON{"acme/metric": {Raw: []byte(`{}`)}}}))}, ""},
		{"two plugins, counted as two providers as upstream", []rampv1.Metric{spec(provider(rampv1.MetricProvider{
			Plugin: map[string]apiextensionsv1.JSON{"acme/a": {Raw: []byte(`{}`)}, "acme/b": {Raw: []byte(`{}`)}}}))}, "multiple providers specified"},
		{"job provider", []rampv1.Metric{spec(provider(rampv1.MetricProvider{Job: &rampv1.JobMetric{}}))}, ""},
		{"negative prometheus timeout", []rampv1.Metric{spec(provider(rampv1.MetricProvider{
			Prometheus: &rampv1.PrometheusMetric{Timeout: ptrInt64(-1)}}))}, "metrics[0]: provider.prometheus.timeout: -1 must not be negative"},
		{"negative web timeoutSeconds means the default, as upstream", []rampv1.Metric{spec(provider(rampv1.MetricProvider{
			Web: &rampv1.WebMetric{URL: "http://x", TimeoutSeconds: -5}}))}, ""},
		{"negative newRelic timeout", []rampv1.Metric{spec(provider(rampv1.MetricProvider{
			NewRelic: &rampv1.NewRelicMetric{Timeout: ptrInt64(-1)}}))}, "metrics[0]: provider.newRelic.timeout: -1 must not be negative"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := ValidateMetrics(c.metrics)
			if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("ValidateMetrics = %v, want %q", err, c.want)
			}
		})
	}
}

func ptrInt64(v int64) *int64 { return &v }

// TestValidateRun: the run-wide fields upstream's CRD admits negative end
// the run in Error, naming the field.
func TestValidateRun(t *testing.T) {
	neg := int32(-1)
	for _, c := range []struct {
		name string
		edit func(*rampv1.AnalysisRunSpec)
		want string
	}{
		{"valid", func(*rampv1.AnalysisRunSpec) {}, ""},
		{"negative retention", func(s *rampv1.AnalysisRunSpec) {
			s.MeasurementRetention = []rampv1.MeasurementRetention{{MetricName: "m", Limit: 2}, {MetricName: "n", Limit: -1}}
		}, "measurementRetention[1].limit: -1 must not be negative"},
		{"negative ttl", func(s *rampv1.AnalysisRunSpec) { s.TTLStrategy = &rampv1.TTLStrategy{SecondsAfterFailure: &neg} },
			"ttlStrategy.secondsAfterFailure: -1 must not be negative"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{spec()}}
			c.edit(&s)
			err := ValidateRun(s)
			if (c.want == "") != (err == nil) || (err != nil && err.Error() != c.want) {
				t.Fatalf("ValidateRun = %v, want %q", err, c.want)
			}
		})
	}
}
