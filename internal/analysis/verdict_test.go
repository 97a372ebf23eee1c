package analysis

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func num(n int32) *intstr.IntOrString  { v := intstr.FromInt32(n); return &v }
func str(s string) *intstr.IntOrString { v := intstr.FromString(s); return &v }

// spec is a metric with limits given as options.
func spec(opts ...func(*rampv1.Metric)) rampv1.Metric {
	m := rampv1.Metric{Name: "m", Provider: rampv1.MetricProvider{Prometheus: &rampv1.PrometheusMetric{}}}
	for _, o := range opts {
		o(&m)
	}
	return m
}

func count(n int32) func(*rampv1.Metric) { return func(m *rampv1.Metric) { m.Count = num(n) } }
func interval(d string) func(*rampv1.Metric) {
	return func(m *rampv1.Metric) { m.Interval = rampv1.DurationString(d) }
}
func failureLimit(n int32) func(*rampv1.Metric) {
	return func(m *rampv1.Metric) { m.FailureLimit = num(n) }
}
func inconclusiveLimit(n int32) func(*rampv1.Metric) {
	return func(m *rampv1.Metric) { m.InconclusiveLimit = num(n) }
}
func errorLimit(n int32) func(*rampv1.Metric) {
	return func(m *rampv1.Metric) { m.ConsecutiveErrorLimit = num(n) }
}
func successLimit(n int32) func(*rampv1.Metric) {
	return func(m *rampv1.Metric) { m.ConsecutiveSuccessLimit = num(n) }
}

// measured records measurements with the phases spelled by s, one second
// apart: S successful, F failed, I inconclusive, E error, R running.
func measured(s string) rampv1.MetricResult {
	r := rampv1.MetricResult{Name: "m", Phase: running}
	letters := map[rune]rampv1.AnalysisPhase{'S': successful, 'F': failed, 'I': inconclusive, 'E': errored, 'R': running}
	for i, c := range s {
		at := metav1.NewTime(t0.Add(time.Duration(i) * time.Second))
		m := rampv1.Measurement{Phase: letters[c], StartedAt: &at, Message: "m" + string(c)}
		if m.Phase.Completed() {
			m.FinishedAt = &at
		}
		Record(&r, m, 100)
	}
	return r
}

func TestMetricPhase(t *testing.T) {
	for _, c := range []struct {
		name        string
		metric      rampv1.Metric
		results     string
		terminating bool
		want        rampv1.AnalysisPhase
		msg         string
	}{
		{"not started", spec(), "", false, pending, ""},
		{"not started, run terminating", spec(), "", true, successful, ""},
		{"in flight", spec(), "R", false, running, ""},
		{"in flight, run terminating", spec(), "SR", true, running, ""},
		// no count, no interval: a single measurement
		{"single measurement successful", spec(), "S", false, successful, ""},
		{"single measurement failed (failureLimit 0)", spec(), "F", false, failed, "failed (1) > failureLimit (0)"},
		{"single measurement inconclusive", spec(), "I", false, inconclusive, "inconclusive (1) > inconclusiveLimit (0)"},
		{"single measurement error is retried", spec(), "E", false, running, ""},
		{"fifth consecutive error (default limit 4)", spec(), "EEEEE", false, errored,
			"consecutiveErrors (5) > consecutiveErrorLimit (4)"},
		{"four consecutive errors", spec(), "EEEE", false, running, ""},
		{"errors interrupted by a success", spec(interval("1m")), "EEESEE", false, running, ""},
		{"consecutiveErrorLimit 0", spec(errorLimit(0)), "E", false, errored,
			"consecutiveErrors (1) > consecutiveErrorLimit (0)"},
		// interval only: until terminated
		{"interval only, running", spec(interval("1m")), "SSS", false, running, ""},
		{"interval only, terminated", spec(interval("1m")), "SSS", true, successful, ""},
		// failureLimit 0 / -1 / 3
		{"failureLimit 0", spec(interval("1m")), "SF", false, failed, "failed (1) > failureLimit (0)"},
		{"failureLimit -1 never fails", spec(interval("1m"), failureLimit(-1), successLimit(5)), "FFFFFFFFFF", false, running, ""},
		{"failureLimit 3 tolerates 3", spec(interval("1m"), failureLimit(3)), "FSFF", false, running, ""},
		{"failureLimit 3, fourth failure", spec(interval("1m"), failureLimit(3)), "FSFFF", false, failed,
			"failed (4) > failureLimit (3)"},
		{"failureLimit as a string", spec(interval("1m"), func(m *rampv1.Metric) { m.FailureLimit = str("1") }), "FF", false, failed,
			"failed (2) > failureLimit (1)"},
		{"inconclusiveLimit 2", spec(interval("1m"), inconclusiveLimit(2)), "III", false, inconclusive,
			"inconclusive (3) > inconclusiveLimit (2)"},
		// count
		{"count 3 reached", spec(interval("1m"), count(3)), "SSS", false, successful, ""},
		{"count 3 not reached", spec(interval("1m"), count(3)), "SS", false, running, ""},
		{"errors do not count", spec(interval("1m"), count(3)), "SESEE", false, running, ""},
		{"count reached with tolerated failures", spec(interval("1m"), count(3), failureLimit(2)), "FSF", false, successful, ""},
		{"count 0 with interval is unbounded", spec(interval("1m"), count(0)), "SSSSSSSSSSSS", false, running, ""},
		// precedence: later checks win (error > inconclusive > failed)
		{"error wins over failed", spec(interval("1m")), "FEEEEE", false, errored, "consecutiveErrors (5)"},
		{"inconclusive wins over failed", spec(interval("1m")), "FI", false, inconclusive, "inconclusive (1)"},
		// consecutiveSuccessLimit
		{"consecutiveSuccessLimit reached", spec(interval("1m"), failureLimit(-1), successLimit(3)), "FFSSS", false, successful, ""},
		{"consecutiveSuccessLimit streak broken", spec(interval("1m"), failureLimit(-1), successLimit(3)), "SSFSS", false, running, ""},
		{"streak broken by an error", spec(interval("1m"), failureLimit(-1), successLimit(3)), "SSESS", false, running, ""},
		{"only consecutiveSuccessLimit, count reached", spec(interval("1m"), count(4), failureLimit(-1), successLimit(3)),
			"SSFS", false, failed, "count (4) reached without consecutiveSuccessLimit (3) being reached"},
		{"both limits, count reached", spec(interval("1m"), count(4), failureLimit(2), successLimit(3)), "SSFS", false, inconclusive,
			"count (4) reached without failureLimit (2) or consecutiveSuccessLimit (3) being reached"},
		{"both limits, success first", spec(interval("1m"), count(6), failureLimit(2), successLimit(2)), "FSS", false, successful, ""},
		{"both limits, failure first", spec(interval("1m"), count(6), failureLimit(1), successLimit(3)), "FSF", false, failed,
			"failed (2) > failureLimit (1)"},
		{"failure limit checked before consecutiveSuccessLimit", spec(interval("1m"), failureLimit(0), successLimit(1)),
			"F", false, failed, "failed (1)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, msg, err := MetricPhase(c.metric, measured(c.results), c.terminating)
			if err != nil || got != c.want || !strings.Contains(msg, c.msg) || (c.msg == "" && msg != "") {
				t.Fatalf("MetricPhase = %s, %q, %v; want %s, %q", got, msg, err, c.want, c.msg)
			}
		})
	}
}

func TestMetricPhaseIsSticky(t *testing.T) {
	r := measured("S")
	r.Phase = failed
	if got, _, _ := MetricPhase(spec(), r, false); got != failed {
		t.Fatalf("completed phase changed to %s", got)
	}
}

func TestMetricPhaseUnresolvedLimit(t *testing.T) {
	m := spec(func(m *rampv1.Metric) { m.FailureLimit = str("{{args.limit}}") })
	got, msg, err := MetricPhase(m, measured("F"), false)
	if err == nil || got != errored || !strings.Contains(msg, `metric "m": failureLimit`) {
		t.Fatalf("MetricPhase = %s, %q, %v", got, msg, err)
	}
}
