// Package provider defines how Ramp takes a metric measurement. Providers
// (prometheus, web, job, ...) live in one small package each and register
// under the name of their field in an AnalysisTemplate's metric.provider
// ("prometheus", "web", "job"); an unknown name is an error, never a silent
// default. Each registers itself from its init (Register) and
// internal/builtin links them; Supported is the registered names. lint
// imports this package, so it names no client, controller-runtime or
// net/http (internal/imports_test.go), not even to type a constructor.
//
// A provider only measures: it returns the raw value that the metric's
// successCondition/failureCondition judge (analysis.Evaluate), or decides the
// phase itself when the measurement has no value to judge (a Job succeeds or
// fails). The AnalysisRun controller owns scheduling, recording, limits and
// phases, and redacts secret argument values from everything a provider
// returns; providers must still never log the metric (it may carry secrets)
// nor echo request headers or bodies into errors.
package provider

import (
	"context"
	"maps"
	"slices"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/registry"
)

// Request is one measurement to take, or to resume, for a metric of a run.
type Request struct {
	// Run is the AnalysisRun being measured (namespace, name and UID for
	// objects the provider creates and owns). Read-only.
	Run *rampv1.AnalysisRun
	// Metric is the run's metric with every {{args.<name>}} placeholder
	// substituted. It may carry secret values.
	Metric rampv1.Metric
	// InFlight is the metric's last measurement while it is still Running
	// (its Metadata is what the provider returned when it started it); nil
	// when a new measurement is due.
	InFlight *rampv1.Measurement
	// Terminate asks the provider to stop the in-flight measurement (the run
	// is ending); set only with InFlight.
	Terminate bool
}

// MaxValues bounds the values of one measurement (a query's records, a
// series' datapoints): a provider decoding an answer with more stops there
// with an error naming the bound, so that a careless query or a hostile
// server cannot make one measurement hold millions of values (a 16 MiB
// answer held 8 million and 600 MiB of heap). No condition needs more; the
// stored value is cut at 4 KiB anyway, and upstream fails to store a value
// past etcd's 1.5 MiB request limit.
const MaxValues = 100000

// Result is what a provider measured.
type Result struct {
	// Value is what the metric's conditions see as `result`: float64 for a
	// scalar, []float64 for a vector, or any decoded JSON value (web).
	Value any
	// Display is the measurement's value as stored in the run's status
	// (measurements[].value), e.g. "[0.99]" or "0.5".
	Display string
	// Phase, when set, decides the measurement without conditions:
	// Successful/Failed for a provider that judges itself (job), Running
	// while the measurement is still in flight (resumed at ResumeAt, or when
	// a watched object changes).
	Phase rampv1.AnalysisPhase
	// Message is an optional human-readable note (never secrets).
	Message string
	// Metadata is stored with the measurement and handed back in
	// Request.InFlight (e.g. the name of a Job).
	Metadata map[string]string
	// ResumeAt is when to look at a Running measurement again (zero: when a
	// watched object changes).
	ResumeAt time.Time
}

// Provider takes one measurement. An error makes the measurement Error
// (retried, counted against consecutiveErrorLimit); its message names the
// cause and must not contain secrets.
type Provider interface {
	Measure(ctx context.Context, req Request) (Result, error)
}

// NewRegistry returns an empty provider registry.
func NewRegistry() *registry.Registry[Provider] { return registry.New[Provider]("metric provider") }

// Name is the registry name of the provider a metric uses: the name of its
// one set field in metric.provider ("prometheus", "web", "job", ...), or
// "plugin/<name>" for a plugin; "" when none is set.
func Name(p rampv1.MetricProvider) string {
	switch {
	case p.Prometheus != nil:
		return "prometheus"
	case p.Web != nil:
		return "web"
	case p.Job != nil:
		return "job"
	case p.Datadog != nil:
		return "datadog"
	case p.NewRelic != nil:
		return "newRelic"
	case p.CloudWatch != nil:
		return "cloudWatch"
	case p.Graphite != nil:
		return "graphite"
	case p.Influxdb != nil:
		return "influxdb"
	case p.Kayenta != nil:
		return "kayenta"
	case p.Wavefront != nil:
		return "wavefront"
	case p.SkyWalking != nil:
		return "skywalking"
	case p.Judge != nil:
		return "judge"
	}
	if len(p.Plugin) > 0 { // several plugins are refused (analysis.ValidateMetrics); the first name, sorted, is deterministic
		return "plugin/" + slices.Sorted(maps.Keys(p.Plugin))[0]
	}
	return ""
}
