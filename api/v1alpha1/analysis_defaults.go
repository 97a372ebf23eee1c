package v1alpha1

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// Accessors below are nil-safe: a nil receiver yields the default.
//
// Defaults applied by the controller (never by the API server: the CRD
// schema carries no defaults, as in Argo Rollouts, so stored objects keep
// exactly what the user wrote). The values are those of Argo Rollouts.
const (
	// DefaultFailureLimit is the number of failed measurements tolerated.
	DefaultFailureLimit int32 = 0
	// DefaultInconclusiveLimit is the number of inconclusive measurements
	// tolerated.
	DefaultInconclusiveLimit int32 = 0
	// DefaultConsecutiveErrorLimit is the number of consecutive measurement
	// errors tolerated before a metric is Error.
	DefaultConsecutiveErrorLimit int32 = 4
	// DefaultConsecutiveSuccessLimit disables early success.
	DefaultConsecutiveSuccessLimit int32 = 0
	// DefaultMeasurementRetentionLimit is the number of measurements kept
	// per metric in the AnalysisRun status.
	DefaultMeasurementRetentionLimit int32 = 10
	// DefaultErrorRetryInterval is the wait before retrying a measurement
	// that ended in error, whatever the metric's interval (as upstream).
	DefaultErrorRetryInterval = 10 * time.Second

	// DefaultWebMetricMethod is the HTTP method of a web metric.
	DefaultWebMetricMethod = WebMetricMethodGet
	// DefaultWebMetricJSONPath selects the whole JSON response.
	DefaultWebMetricJSONPath = "{$}"
	// DefaultWebMetricTimeoutSeconds is the request timeout of a web metric.
	DefaultWebMetricTimeoutSeconds int64 = 10

	// DefaultDatadogAPIVersion is the Datadog API used by a datadog metric.
	DefaultDatadogAPIVersion = "v1"
	// DefaultDatadogInterval is the query window of a datadog metric.
	DefaultDatadogInterval DurationString = "5m"
	// DefaultDatadogSecretName is the Secret holding Datadog credentials.
	DefaultDatadogSecretName = "datadog"
	// DatadogAddressKey, DatadogAPIKeyKey and DatadogAppKeyKey are the keys
	// of a Datadog credential Secret.
	DatadogAddressKey = "address"
	DatadogAPIKeyKey  = "api-key"
	DatadogAppKeyKey  = "app-key"
	// NewRelicAPIKeyKey, NewRelicAccountIDKey, NewRelicRegionKey and
	// NewRelicNerdGraphURLKey are the keys of a New Relic profile Secret.
	NewRelicAPIKeyKey       = "personal-api-key"
	NewRelicAccountIDKey    = "account-id"
	NewRelicRegionKey       = "region"
	NewRelicNerdGraphURLKey = "base-url-nerdgraph"
	// WavefrontTokensSecretName is the Secret holding one Wavefront API
	// token per address (its keys).
	WavefrontTokensSecretName = "wavefront-api-tokens"
	// DefaultNewRelicProfile is the Secret holding New Relic credentials.
	DefaultNewRelicProfile = "newrelic"
	// DefaultNewRelicTimeoutSeconds is the NRQL query timeout.
	DefaultNewRelicTimeoutSeconds int64 = 5
	// DefaultInfluxdbProfile is the Secret holding InfluxDB credentials.
	DefaultInfluxdbProfile = "influxdb"
	// InfluxdbQueryLanguageFlux and InfluxdbQueryLanguageInfluxQL are the
	// values of an influxdb metric's queryLanguage (a Ramp extension);
	// flux is the default, as upstream speaks only Flux.
	InfluxdbQueryLanguageFlux     = "flux"
	InfluxdbQueryLanguageInfluxQL = "influxql"
	// DefaultCloudWatchInterval is the query window of a cloudWatch metric.
	DefaultCloudWatchInterval DurationString = "5m"

	// DefaultExperimentProgressDeadlineSeconds is how long an Experiment's
	// templates may take to become available.
	DefaultExperimentProgressDeadlineSeconds int32 = 600
	// DefaultExperimentScaleDownDelaySeconds delays scaling down an
	// Experiment's ReplicaSets after it completes.
	DefaultExperimentScaleDownDelaySeconds int32 = 30
	// DefaultExperimentTemplateReplicas is the replica count of a template.
	DefaultExperimentTemplateReplicas int32 = 1
)

// intOrStringValue resolves an int-or-string limit: nil gives def, an int
// gives its value, a string must hold an integer (placeholders are resolved
// when the AnalysisRun is created, so a run should only hold numbers).
func intOrStringValue(v *intstr.IntOrString, def int32) (int32, error) {
	if v == nil {
		return def, nil
	}
	if v.Type == intstr.Int {
		return v.IntVal, nil
	}
	n, err := strconv.ParseInt(v.StrVal, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer", v.StrVal)
	}
	return int32(n), nil
}

// EffectiveFailureLimit is failureLimit or DefaultFailureLimit; -1 means no
// limit.
func (m *Metric) EffectiveFailureLimit() (int32, error) {
	if m == nil {
		return DefaultFailureLimit, nil
	}
	return intOrStringValue(m.FailureLimit, DefaultFailureLimit)
}

// EffectiveInconclusiveLimit is inconclusiveLimit or its default.
func (m *Metric) EffectiveInconclusiveLimit() (int32, error) {
	if m == nil {
		return DefaultInconclusiveLimit, nil
	}
	return intOrStringValue(m.InconclusiveLimit, DefaultInconclusiveLimit)
}

// EffectiveConsecutiveErrorLimit is consecutiveErrorLimit or its default.
func (m *Metric) EffectiveConsecutiveErrorLimit() (int32, error) {
	if m == nil {
		return DefaultConsecutiveErrorLimit, nil
	}
	return intOrStringValue(m.ConsecutiveErrorLimit, DefaultConsecutiveErrorLimit)
}

// EffectiveConsecutiveSuccessLimit is consecutiveSuccessLimit or its default
// (0, disabled).
func (m *Metric) EffectiveConsecutiveSuccessLimit() (int32, error) {
	if m == nil {
		return DefaultConsecutiveSuccessLimit, nil
	}
	return intOrStringValue(m.ConsecutiveSuccessLimit, DefaultConsecutiveSuccessLimit)
}

// EffectiveCount is the number of measurements to take: count when it is
// set and not 0; otherwise 1 when the metric has no interval, and 0
// ("until stopped") when it has one.
func (m *Metric) EffectiveCount() (int32, error) {
	if m == nil {
		return 1, nil
	}
	n, err := intOrStringValue(m.Count, 0)
	if err != nil {
		return 0, err
	}
	if n == 0 && m.Interval == "" {
		return 1, nil
	}
	return n, nil
}

// EffectiveMethod is the HTTP method, GET when unset.
func (w *WebMetric) EffectiveMethod() WebMetricMethod {
	if w == nil || w.Method == "" {
		return DefaultWebMetricMethod
	}
	return w.Method
}

// EffectiveJSONPath is jsonPath, "{$}" when unset.
func (w *WebMetric) EffectiveJSONPath() string {
	if w == nil || w.JSONPath == "" {
		return DefaultWebMetricJSONPath
	}
	return w.JSONPath
}

// EffectiveTimeout is the request timeout, 10s when unset or 0.
func (w *WebMetric) EffectiveTimeout() time.Duration {
	if w == nil || w.TimeoutSeconds <= 0 {
		return SaturatingSeconds(DefaultWebMetricTimeoutSeconds)
	}
	return SaturatingSeconds(w.TimeoutSeconds)
}

// EffectiveAPIVersion is apiVersion, v1 when unset.
func (d *DatadogMetric) EffectiveAPIVersion() string {
	if d == nil || d.APIVersion == "" {
		return DefaultDatadogAPIVersion
	}
	return d.APIVersion
}

// EffectiveInterval is interval, 5m when unset.
func (d *DatadogMetric) EffectiveInterval() DurationString {
	if d == nil || d.Interval == "" {
		return DefaultDatadogInterval
	}
	return d.Interval
}

// EffectiveProfile is profile, "newrelic" when unset.
func (n *NewRelicMetric) EffectiveProfile() string {
	if n == nil || n.Profile == "" {
		return DefaultNewRelicProfile
	}
	return n.Profile
}

// EffectiveTimeout is the NRQL timeout, 5s when unset.
func (n *NewRelicMetric) EffectiveTimeout() time.Duration {
	if n == nil || n.Timeout == nil || *n.Timeout <= 0 {
		return SaturatingSeconds(DefaultNewRelicTimeoutSeconds)
	}
	return SaturatingSeconds(*n.Timeout)
}

// EffectiveProfile is profile, "influxdb" when unset.
func (i *InfluxdbMetric) EffectiveProfile() string {
	if i == nil || i.Profile == "" {
		return DefaultInfluxdbProfile
	}
	return i.Profile
}

// EffectiveInterval is interval, 5m when unset.
func (c *CloudWatchMetric) EffectiveInterval() DurationString {
	if c == nil || c.Interval == "" {
		return DefaultCloudWatchInterval
	}
	return c.Interval
}

// matchesMetric reports whether pattern (a metric name or a regular
// expression, anchored to the whole name) selects metricName.
func matchesMetric(pattern, metricName string) bool {
	if pattern == metricName {
		return true
	}
	re, err := regexp.Compile("^(?:" + pattern + ")$")
	return err == nil && re.MatchString(metricName)
}

// IsDryRunMetric reports whether metricName is selected by one of the
// dry-run entries.
func IsDryRunMetric(dryRun []DryRun, metricName string) bool {
	for _, d := range dryRun {
		if matchesMetric(d.MetricName, metricName) {
			return true
		}
	}
	return false
}

// MeasurementRetentionLimit is the number of measurements to keep for
// metricName: the limit of the first matching entry, else the default.
func MeasurementRetentionLimit(retention []MeasurementRetention, metricName string) int32 {
	for _, r := range retention {
		if matchesMetric(r.MetricName, metricName) {
			return r.Limit
		}
	}
	return DefaultMeasurementRetentionLimit
}

// EffectiveProgressDeadlineSeconds is progressDeadlineSeconds or 600.
func (s *ExperimentSpec) EffectiveProgressDeadlineSeconds() int32 {
	if s == nil || s.ProgressDeadlineSeconds == nil {
		return DefaultExperimentProgressDeadlineSeconds
	}
	return *s.ProgressDeadlineSeconds
}

// EffectiveScaleDownDelaySeconds is scaleDownDelaySeconds or 30.
func (s *ExperimentSpec) EffectiveScaleDownDelaySeconds() int32 {
	if s == nil || s.ScaleDownDelaySeconds == nil {
		return DefaultExperimentScaleDownDelaySeconds
	}
	return *s.ScaleDownDelaySeconds
}

// EffectiveReplicas is replicas or 1.
func (t *TemplateSpec) EffectiveReplicas() int32 {
	if t == nil || t.Replicas == nil {
		return DefaultExperimentTemplateReplicas
	}
	return *t.Replicas
}
