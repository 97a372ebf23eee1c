package analysis

import (
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// at is t0 plus a duration in Go syntax.
func at(d string) time.Time {
	v, err := time.ParseDuration(d)
	if err != nil {
		panic(err)
	}
	return t0.Add(v)
}

func delay(d string) func(*rampv1.Metric) {
	return func(m *rampv1.Metric) { m.InitialDelay = rampv1.DurationString(d) }
}

// lastAt moves the last measurement of r to finish at t (or resume at t
// when it is in flight).
func lastAt(r rampv1.MetricResult, t time.Time) rampv1.MetricResult {
	l := &r.Measurements[len(r.Measurements)-1]
	mt := metav1.NewTime(t)
	if l.Phase.Completed() {
		l.FinishedAt = &mt
	} else {
		l.ResumeAt = &mt
	}
	return r
}

func TestNextMeasurement(t *testing.T) {
	none := Next{}
	for _, c := range []struct {
		name        string
		metric      rampv1.Metric
		result      *rampv1.MetricResult
		terminating bool
		now         time.Time
		want        Next
	}{
		{"first measurement at start", spec(), nil, false, t0, Next{Due: true, At: t0}},
		{"first measurement overdue", spec(interval("1m")), nil, false, at("1h"), Next{Due: true, At: t0}},
		{"initialDelay not elapsed", spec(delay("5m")), nil, false, at("4m59s"), Next{At: at("5m")}},
		{"initialDelay elapsed exactly", spec(delay("5m")), nil, false, at("5m"), Next{Due: true, At: at("5m")}},
		{"empty result like no result", spec(delay("1m")), &rampv1.MetricResult{Name: "m"}, false, t0, Next{At: at("1m")}},
		{"terminating before the first", spec(), nil, true, t0, none},
		// no count, no interval: one measurement
		{"single measurement taken", spec(), ptr(lastAt(measured("S"), t0)), false, at("1h"), none},
		{"single measurement failed", spec(failureLimit(3)), ptr(lastAt(measured("F"), t0)), false, at("1h"), none},
		{"single measurement error retried after 10s", spec(), ptr(lastAt(measured("E"), t0)), false, at("9s"), Next{At: at("10s")}},
		{"error retry due", spec(), ptr(lastAt(measured("E"), t0)), false, at("10s"), Next{Due: true, At: at("10s")}},
		// count + interval (seed 003 blue-green: 3s, count 2)
		{"count 2 interval 3s, after one", spec(interval("3s"), count(2)), ptr(lastAt(measured("S"), t0)), false, at("1s"), Next{At: at("3s")}},
		{"count 2 interval 3s, due", spec(interval("3s"), count(2)), ptr(lastAt(measured("S"), t0)), false, at("3s"), Next{Due: true, At: at("3s")}},
		{"count 2 interval 3s, done", spec(interval("3s"), count(2)), ptr(lastAt(measured("SF"), t0)), false, at("1h"), none},
		{"count 2 after an error: 10s retry, not 3s", spec(interval("3s"), count(2)), ptr(lastAt(measured("SE"), t0)), false, at("3s"), Next{At: at("10s")}},
		{"errors do not use up count", spec(interval("3s"), count(2)), ptr(lastAt(measured("SEEE"), t0)), false, t0, Next{At: at("10s")}},
		// interval only: until terminated
		{"interval only", spec(interval("5m")), ptr(lastAt(measured("SSSSSSSSSSSS"), at("55m"))), false, at("56m"), Next{At: at("1h")}},
		{"interval 5m after an error: 10s", spec(interval("5m")), ptr(lastAt(measured("SE"), t0)), false, t0, Next{At: at("10s")}},
		{"interval only, terminating", spec(interval("5m")), ptr(lastAt(measured("S"), t0)), true, at("1h"), none},
		{"count 0 with interval", spec(interval("1m"), count(0)), ptr(lastAt(measured("SSS"), t0)), false, t0, Next{At: at("1m")}},
		// never more often than once a second, whatever the interval
		{"interval 10ms: a second", spec(interval("10ms")), ptr(lastAt(measured("S"), t0)), false, at("10ms"), Next{At: at("1s")}},
		{"interval 10ms, due after a second", spec(interval("10ms")), ptr(lastAt(measured("S"), t0)), false, at("1s"), Next{Due: true, At: at("1s")}},
		{"interval -1s (not validated): a second", spec(interval("-1s")), ptr(lastAt(measured("S"), t0)), false, t0, Next{At: at("1s")}},
		{"interval 0s (not validated): a second", spec(interval("0s"), count(5)), ptr(lastAt(measured("S"), t0)), false, t0, Next{At: at("1s")}},
		// in-flight measurements
		{"in flight, resumeAt ahead", spec(interval("1m")), ptr(lastAt(measured("SR"), at("30s"))), false, at("10s"), Next{Resume: true, At: at("30s")}},
		{"in flight, resumeAt reached", spec(interval("1m")), ptr(lastAt(measured("SR"), at("30s"))), false, at("30s"), Next{Due: true, Resume: true, At: at("30s")}},
		{"in flight, no resumeAt", spec(), ptr(measured("R")), false, at("1h"), Next{Due: true, Resume: true}},
		{"in flight, terminating: now", spec(interval("1m")), ptr(lastAt(measured("R"), at("1h"))), true, at("1s"), Next{Due: true, Resume: true, At: at("1s")}},
		// completed metric
		{"completed metric", spec(interval("1m")), &rampv1.MetricResult{Phase: failed, Measurements: measured("F").Measurements}, false, at("1h"), none},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := NextMeasurement(c.metric, c.result, t0, c.terminating, c.now)
			if err != nil || got != c.want {
				t.Fatalf("NextMeasurement = %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestNextMeasurementTimes(t *testing.T) {
	// finishedAt missing: scheduled from startedAt.
	r := measured("S")
	r.Measurements[0].FinishedAt = nil
	if got, _ := NextMeasurement(spec(interval("1m")), &r, t0, false, t0); got.At != at("1m") {
		t.Fatalf("from startedAt: %+v", got)
	}
	done := lastAt(measured("S"), t0)
	if _, err := NextMeasurement(spec(interval("often")), &done, t0, false, t0); err == nil {
		t.Fatal("bad interval accepted")
	}
	if _, err := NextMeasurement(spec(delay("soon")), nil, t0, false, t0); err == nil {
		t.Fatal("bad initialDelay accepted")
	}
}

func TestTasks(t *testing.T) {
	s := rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{
		spec(func(m *rampv1.Metric) { m.Name = "new" }),
		spec(func(m *rampv1.Metric) { m.Name = "waiting" }, interval("1m")),
		spec(func(m *rampv1.Metric) { m.Name = "due" }, interval("1m")),
		spec(func(m *rampv1.Metric) { m.Name = "inflight" }),
		spec(func(m *rampv1.Metric) { m.Name = "delayed" }, delay("1h")),
	}}
	named := func(name string, r rampv1.MetricResult) rampv1.MetricResult { r.Name = name; return r }
	started := metav1.NewTime(t0)
	st := rampv1.AnalysisRunStatus{Phase: running, StartedAt: &started, MetricResults: []rampv1.MetricResult{
		named("waiting", lastAt(measured("S"), at("30s"))),
		named("due", lastAt(measured("S"), t0)),
		named("inflight", measured("R")),
	}}
	got, err := Tasks(s, st, at("1m"))
	want := []Task{{Metric: s.Metrics[0]}, {Metric: s.Metrics[2]}, {Metric: s.Metrics[3], Resume: true}}
	if err != nil || len(got) != len(want) {
		t.Fatalf("Tasks = %+v, %v", got, err)
	}
	for i := range want {
		if got[i].Metric.Name != want[i].Metric.Name || got[i].Resume != want[i].Resume || got[i].Terminate {
			t.Fatalf("task %d = %+v, want %+v", i, got[i], want[i])
		}
	}

	s.Terminate = true
	got, _ = Tasks(s, st, at("1m"))
	if len(got) != 1 || got[0].Metric.Name != "inflight" || !got[0].Terminate || !got[0].Resume {
		t.Fatalf("terminating Tasks = %+v", got)
	}

	st.Phase = successful
	if got, _ := Tasks(s, st, at("1m")); len(got) != 0 {
		t.Fatalf("completed run has tasks: %+v", got)
	}

	bad := rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{spec(count(2), interval("3s"), failureLimit(3))}}
	if _, err := Tasks(bad, rampv1.AnalysisRunStatus{}, t0); err == nil || !strings.Contains(err.Error(), "count must be >= failureLimit") {
		t.Fatalf("invalid spec: %v", err)
	}
}

// TestWake: the next wake-up leaves out the metrics whose measurement is
// in flight in the controller (due now in status, but their end wakes the
// run): without that, a pass would requeue itself at once while a slow
// measurement runs.
func TestWake(t *testing.T) {
	count := intstr.FromInt32(3)
	web := rampv1.MetricProvider{Web: &rampv1.WebMetric{URL: "http://x"}}
	spec := rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{
		{Name: "slow", Interval: "1s", Count: &count, Provider: web},
		{Name: "later", Interval: "1m", Count: &count, Provider: web, InitialDelay: "30s"},
	}}
	started := metav1.NewTime(t0)
	status := &rampv1.AnalysisRunStatus{Phase: rampv1.AnalysisPhaseRunning, StartedAt: &started}
	for _, c := range []struct {
		busy []string
		want time.Time
	}{
		{nil, t0},
		{[]string{"slow"}, at("30s")},
		{[]string{"slow", "later"}, time.Time{}},
	} {
		got, err := Wake(spec, status, func(m string) bool { return slices.Contains(c.busy, m) }, t0)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("busy %v: Wake = %v, %v; want %v", c.busy, got, err, c.want)
		}
	}
	done := status.DeepCopy()
	done.Phase = rampv1.AnalysisPhaseSuccessful
	if got, _ := Wake(spec, done, nil, t0); !got.IsZero() {
		t.Errorf("a completed run wakes at %v", got)
	}
}
