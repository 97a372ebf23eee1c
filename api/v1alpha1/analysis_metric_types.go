package v1alpha1

import (
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// DurationString is a duration in Go's time.ParseDuration syntax, such as
// "30s", "5m" or "1h30m". It is kept as a string in the API, as in Argo
// Rollouts, so that a template may hold an argument placeholder that is
// resolved when the AnalysisRun is created; it is not pattern-validated.
type DurationString string

// Duration parses the string (ParseDuration). An empty DurationString is a
// zero duration.
func (d DurationString) Duration() (time.Duration, error) {
	return ParseDuration(string(d))
}

// Metric is one measurement to take, how often to take it, and how to judge
// each result. Limits that are int-or-string accept a number or a string
// holding a number (possibly an "{{args.NAME}}" placeholder in a template).
type Metric struct {
	// Name of the metric, unique within the AnalysisRun.
	Name string `json:"name"`
	// Interval between measurements. When empty, a single measurement is
	// taken (unless count asks for more).
	// +optional
	Interval DurationString `json:"interval,omitempty"`
	// InitialDelay postpones the first measurement by this duration after
	// the AnalysisRun starts.
	// +optional
	InitialDelay DurationString `json:"initialDelay,omitempty"`
	// Count is the number of measurements to take. When unset: one
	// measurement if no interval is set, otherwise measurements continue
	// until the run is terminated or a limit is reached. 0 also means
	// "indefinitely" when an interval is set.
	// +optional
	Count *intstr.IntOrString `json:"count,omitempty"`
	// SuccessCondition is an expression evaluated against the measurement
	// result ("result") that marks the measurement Successful.
	// +optional
	SuccessCondition string `json:"successCondition,omitempty"`
	// FailureCondition is an expression evaluated against the measurement
	// result ("result") that marks the measurement Failed.
	// +optional
	FailureCondition string `json:"failureCondition,omitempty"`
	// FailureLimit is the number of failed measurements tolerated before
	// the metric is Failed. Default 0 (the first failure fails the metric);
	// -1 disables the limit.
	// +optional
	FailureLimit *intstr.IntOrString `json:"failureLimit,omitempty"`
	// InconclusiveLimit is the number of inconclusive measurements tolerated
	// before the metric is Inconclusive. Default 0.
	// +optional
	InconclusiveLimit *intstr.IntOrString `json:"inconclusiveLimit,omitempty"`
	// ConsecutiveErrorLimit is the number of consecutive measurement errors
	// tolerated before the metric is Error. Default 4.
	// +optional
	ConsecutiveErrorLimit *intstr.IntOrString `json:"consecutiveErrorLimit,omitempty"`
	// ConsecutiveSuccessLimit is the number of consecutive successful
	// measurements after which the metric is Successful. Default 0, which
	// disables this early success. failureLimit takes precedence.
	// +optional
	ConsecutiveSuccessLimit *intstr.IntOrString `json:"consecutiveSuccessLimit,omitempty"`
	// Provider is where the measurement is taken from. Exactly one provider
	// must be set.
	Provider MetricProvider `json:"provider"`
}
