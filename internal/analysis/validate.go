package analysis

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// ValidateMetrics checks the metrics of an AnalysisRun (arguments already
// resolved) with the rules Argo Rollouts applies before taking any
// measurement; a run whose metrics fail them ends in Error with
// "Analysis spec invalid: <error>". Conditions are not compiled here (as
// upstream, a condition that does not compile makes each measurement an
// Error); (*Evaluator).Check reports them early.
func ValidateMetrics(metrics []rampv1.Metric) error {
	return eachMetric(metrics, ValidateMetric)
}

// eachMetric checks that there are metrics, that their names are distinct,
// and each with check; errors name the metric's index.
func eachMetric(metrics []rampv1.Metric, check func(rampv1.Metric) error) error {
	if len(metrics) == 0 {
		return errors.New("no metrics specified")
	}
	seen := make(map[string]bool, len(metrics))
	for i, m := range metrics {
		if seen[m.Name] {
			return fmt.Errorf("metrics[%d]: duplicate name '%s'", i, m.Name)
		}
		seen[m.Name] = true
		if err := check(m); err != nil {
			return fmt.Errorf("metrics[%d]: %w", i, err)
		}
	}
	return nil
}

// ValidateMetricsWithArgs is ValidateMetrics before the run exists: each
// metric is checked with the {{args.NAME}} placeholders whose values are
// already known (args with a value) substituted, as upstream resolves them
// first, so `count: "{{args.count}}"` is checked as the count it will be. A
// metric that still holds a placeholder (an argument from a Secret or a pod
// field) is checked when its run starts, where a bad value ends the run in
// Error.
func ValidateMetricsWithArgs(metrics []rampv1.Metric, args []rampv1.Argument) error {
	known := knownArgs(args)
	return eachMetric(metrics, func(m rampv1.Metric) error {
		if name := undeclared(m, args); name != "" {
			return fmt.Errorf("metric %q uses argument %q, which is not declared", m.Name, name)
		}
		if resolved, complete := substituteKnown(m, known); complete {
			return ValidateMetric(resolved)
		}
		return nil
	})
}

// undeclared returns the first placeholder of m naming no argument, or "".
func undeclared(m rampv1.Metric, args []rampv1.Argument) string {
	raw, _ := json.Marshal(m) // a decoded Metric always encodes (plain data)
	for _, tag := range placeholder.FindAllSubmatch(raw, -1) {
		if !slices.ContainsFunc(args, func(a rampv1.Argument) bool { return a.Name == string(tag[1]) }) {
			return string(tag[1])
		}
	}
	return ""
}

// ValidateMetric checks one metric: limits hold integers, count (when set)
// is at least failureLimit and inconclusiveLimit, count > 1 needs an
// interval, durations parse, an interval a metric waits (count other than
// 1) is positive, limits are in range, failureLimit and
// consecutiveSuccessLimit are not both disabled, and exactly one provider
// is set.
func ValidateMetric(m rampv1.Metric) error {
	l, err := limitsOf(m)
	if err != nil {
		return err
	}
	var count int32 // as written: 0 when unset
	if m.Count != nil {
		count = int32(m.Count.IntValue())
	}
	switch {
	case count > 0 && count < l.failure:
		return errors.New("count must be >= failureLimit")
	case count > 0 && count < l.inconclusive:
		return errors.New("count must be >= inconclusiveLimit")
	case count > 1 && m.Interval == "":
		return errors.New("interval must be specified when count > 1")
	}
	iv, err := m.Interval.Duration()
	if err != nil {
		return fmt.Errorf("invalid interval string: %w", err)
	}
	if m.Interval != "" && iv <= 0 && count != 1 {
		// upstream admits it and measures in a hot loop: no one's intent
		// (docs/conformance.md); with count 1 it is never waited
		return fmt.Errorf("interval: %q must be positive", m.Interval)
	}
	if _, err := m.InitialDelay.Duration(); err != nil {
		return fmt.Errorf("invalid initialDelay string: %w", err)
	}
	switch {
	case l.failure < -1:
		return errors.New("failureLimit must be >= -1")
	case l.inconclusive < 0:
		return errors.New("inconclusiveLimit must be >= 0")
	case l.consecutiveError < 0:
		return errors.New("consecutiveErrorLimit must be >= 0")
	case l.consecutiveSuccess < 0:
		return errors.New("consecutiveSuccessLimit must be >= 0")
	case l.failure == -1 && l.consecutiveSuccess == 0:
		return errors.New("failureLimit (-1) and consecutiveSuccessLimit (0) are both disabled: one must apply")
	}
	switch n := providers(m.Provider); {
	case n == 0:
		return errors.New("no provider specified")
	case n > 1:
		return errors.New("multiple providers specified")
	}
	return timeoutProblem(m.Provider)
}

// timeoutProblem reports a negative provider timeout (upstream's CRD admits
// one; Ramp's no longer rejects it at admission). A web metric's
// timeoutSeconds at or below 0 means the default, as upstream, so it is not
// checked here.
func timeoutProblem(p rampv1.MetricProvider) error {
	var field string
	var v int64
	switch {
	case p.Prometheus != nil && p.Prometheus.Timeout != nil:
		field, v = "provider.prometheus.timeout", *p.Prometheus.Timeout
	case p.NewRelic != nil && p.NewRelic.Timeout != nil:
		field, v = "provider.newRelic.timeout", *p.NewRelic.Timeout
	}
	if v < 0 {
		return fmt.Errorf("%s: %d must not be negative", field, v)
	}
	return nil
}

// ValidateRun is ValidateMetrics plus the run-wide fields: a
// measurementRetention limit and a ttlStrategy must not be negative.
func ValidateRun(spec rampv1.AnalysisRunSpec) error {
	if err := ValidateMetrics(spec.Metrics); err != nil {
		return err
	}
	return ValidateRunFields(spec.MeasurementRetention, spec.TTLStrategy)
}

// ValidateRunFields reports a negative measurementRetention limit or
// ttlStrategy duration, naming the field.
func ValidateRunFields(retention []rampv1.MeasurementRetention, ttl *rampv1.TTLStrategy) error {
	for i, r := range retention {
		if r.Limit < 0 {
			return fmt.Errorf("measurementRetention[%d].limit: %d must not be negative", i, r.Limit)
		}
	}
	if ttl == nil {
		return nil
	}
	for _, f := range []struct {
		name string
		v    *int32
	}{{"secondsAfterCompletion", ttl.SecondsAfterCompletion}, {"secondsAfterFailure", ttl.SecondsAfterFailure},
		{"secondsAfterSuccess", ttl.SecondsAfterSuccess}} {
		if f.v != nil && *f.v < 0 {
			return fmt.Errorf("ttlStrategy.%s: %d must not be negative", f.name, *f.v)
		}
	}
	return nil
}

// providers counts the providers set in p (a non-nil pointer, each entry
// of the plugin map), whatever fields the API grows.
func providers(p rampv1.MetricProvider) int {
	n := 0
	v := reflect.ValueOf(p)
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Pointer:
			if !f.IsNil() {
				n++
			}
		case reflect.Map:
			n += f.Len() // each plugin named is a provider
		}
	}
	return n
}
