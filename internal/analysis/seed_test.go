package analysis

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// event is one measurement of a simulated run.
type event struct {
	at    time.Duration // since the run started
	value string
	phase rampv1.AnalysisPhase
}

// simulate reconciles a run the way the controller does, with a fake
// clock: Tasks, one measurement per task whose result is values(i),
// Evaluate, Record, Assess, then sleep until the time Assess returns.
// terminateAt > 0 sets spec.terminate at that time.
func simulate(t *testing.T, s rampv1.AnalysisRunSpec, values func(i int) any, terminateAt time.Duration) (rampv1.AnalysisRunStatus, []event) {
	t.Helper()
	var st rampv1.AnalysisRunStatus
	var events []event
	now := t0
	for range 1000 {
		if terminateAt > 0 && !now.Before(t0.Add(terminateAt)) {
			s.Terminate = true
		}
		tasks, _ := Tasks(s, st, now) // an invalid spec is reported by Assess
		for _, task := range tasks {
			v := values(len(events))
			phase, err := Evaluate(task.Metric, v)
			stamp := metav1.NewTime(now)
			m := rampv1.Measurement{Phase: phase, Value: fmt.Sprint(v), StartedAt: &stamp, FinishedAt: &stamp}
			if err != nil {
				m.Message = err.Error()
			}
			Record(ResultFor(s, &st, task.Metric.Name), m, RetentionLimit(s, task.Metric.Name))
			events = append(events, event{now.Sub(t0), m.Value, phase})
		}
		next, err := Assess(s, &st, now)
		switch {
		case err != nil:
			t.Fatal(err)
		case st.Phase.Completed():
			return st, events
		case next.IsZero() && terminateAt == 0:
			t.Fatalf("run stuck at %v: %+v", now.Sub(t0), st)
		case terminateAt > 0 && !s.Terminate && (next.IsZero() || next.After(t0.Add(terminateAt))):
			next = t0.Add(terminateAt)
		}
		now = next
	}
	t.Fatal("run did not complete")
	return st, nil
}

func vector(vs ...float64) func(int) any {
	return func(i int) any { return []any{vs[min(i, len(vs)-1)]} }
}

// seedCanary is 003-canary-analysis.yaml's metric.
func seedCanary() rampv1.Metric {
	return named("success-rate", interval("5m"), failureLimit(3),
		func(m *rampv1.Metric) { m.SuccessCondition = "result[0] > 0" })
}

// seedBlueGreen is 003-bluegreen-analysis-template.yaml's metric.
func seedBlueGreen() rampv1.Metric {
	return named("success-rate10", interval("3s"), count(2), failureLimit(3),
		func(m *rampv1.Metric) { m.SuccessCondition = "result[0] = 0" })
}

func TestSeed003Canary(t *testing.T) {
	run := func(values func(int) any, terminateAt time.Duration) (rampv1.AnalysisRunStatus, []event) {
		return simulate(t, rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{seedCanary()}}, values, terminateAt)
	}
	t.Run("healthy until the rollout terminates the run", func(t *testing.T) {
		st, events := run(vector(1), 62*time.Minute)
		if len(events) != 13 || events[12].at != time.Hour || st.Phase != successful || st.Message != "Run Terminated" {
			t.Fatalf("%d measurements, last %+v; run %s %q", len(events), events[len(events)-1], st.Phase, st.Message)
		}
		r := st.MetricResults[0]
		if r.Count != 13 || r.Successful != 13 || len(r.Measurements) != 10 || r.Phase != successful {
			t.Fatalf("metric result: %+v", r)
		}
	})
	t.Run("fourth failure fails the run", func(t *testing.T) {
		st, events := run(vector(0), 0)
		want := []event{{0, "[0]", failed}, {5 * time.Minute, "[0]", failed}, {10 * time.Minute, "[0]", failed}, {15 * time.Minute, "[0]", failed}}
		if !reflect.DeepEqual(events, want) || st.Phase != failed ||
			st.Message != `Metric "success-rate" assessed Failed due to failed (4) > failureLimit (3)` ||
			!st.CompletedAt.Time.Equal(t0.Add(15*time.Minute)) {
			t.Fatalf("events %+v\nrun %s %q at %v", events, st.Phase, st.Message, st.CompletedAt)
		}
	})
	t.Run("failures within the limit are tolerated", func(t *testing.T) {
		st, events := run(vector(0, 1, 0, 0, 1), 30*time.Minute)
		if len(events) != 6 || st.Phase != successful || st.MetricResults[0].Failed != 3 {
			t.Fatalf("%d measurements; run %s; %+v", len(events), st.Phase, st.MetricResults[0])
		}
	})
	t.Run("empty vector: errors retried every 10s, Error after 5", func(t *testing.T) {
		st, events := run(func(int) any { return []any{} }, 0)
		for i, e := range events {
			if e.at != time.Duration(i)*10*time.Second || e.phase != errored {
				t.Fatalf("measurement %d: %+v", i, e)
			}
		}
		if len(events) != 5 || st.Phase != errored || !strings.HasPrefix(st.Message,
			`Metric "success-rate" assessed Error due to consecutiveErrors (5) > consecutiveErrorLimit (4): "Error Message: `+
				`metric "success-rate": evaluating successCondition "result[0] > 0": index out of range: 0`) {
			t.Fatalf("%d measurements; run %s %q", len(events), st.Phase, st.Message)
		}
	})
}

func TestSeed003BlueGreen(t *testing.T) {
	t.Run("as written: rejected before any measurement", func(t *testing.T) {
		st, events := simulate(t, rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{seedBlueGreen()}}, vector(0), 0)
		if len(events) != 0 || st.Phase != errored || st.Message != "Analysis spec invalid: metrics[0]: count must be >= failureLimit" {
			t.Fatalf("%d measurements; run %s %q", len(events), st.Phase, st.Message)
		}
		err := NewEvaluator().Check(seedBlueGreen())
		if err == nil || err.Error() != `metric "success-rate10": compiling successCondition "result[0] = 0": unexpected token Operator("=") (1:11)` {
			t.Fatalf("Check = %v", err)
		}
	})
	t.Run("count 2 can never exceed failureLimit 3", func(t *testing.T) {
		m := seedBlueGreen()
		if got, _, _ := MetricPhase(m, measured("FF"), false); got != successful {
			t.Fatalf("two failures, count reached: %s", got)
		}
	})
	// The same interval, count and vector result with a condition that
	// compiles and a failureLimit the count can reach.
	valid := func(success string, limit int32) rampv1.AnalysisRunSpec {
		m := seedBlueGreen()
		m.SuccessCondition, m.FailureLimit = success, num(limit)
		return rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{m}}
	}
	for _, c := range []struct {
		name      string
		spec      rampv1.AnalysisRunSpec
		values    func(int) any
		want      []event
		phase     rampv1.AnalysisPhase
		completed time.Duration
	}{
		{"two successes at 0s and 3s", valid("result[0] > 0", 2), vector(1),
			[]event{{0, "[1]", successful}, {3 * time.Second, "[1]", successful}}, successful, 3 * time.Second},
		{"a tolerated failure", valid("result[0] > 0", 2), vector(0, 1),
			[]event{{0, "[0]", failed}, {3 * time.Second, "[1]", successful}}, successful, 3 * time.Second},
		{"failureLimit 0: first failure ends the run", valid("result[0] > 0", 0), vector(0),
			[]event{{0, "[0]", failed}}, failed, 0},
		{"the seed's `= 0` compiles on no measurement", valid("result[0] = 0", 2), vector(0),
			[]event{{0, "[0]", errored}, {10 * time.Second, "[0]", errored}, {20 * time.Second, "[0]", errored},
				{30 * time.Second, "[0]", errored}, {40 * time.Second, "[0]", errored}}, errored, 40 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, events := simulate(t, c.spec, c.values, 0)
			if !reflect.DeepEqual(events, c.want) || st.Phase != c.phase || !st.CompletedAt.Time.Equal(t0.Add(c.completed)) {
				t.Fatalf("events %+v\nrun %s %q completed %v", events, st.Phase, st.Message, st.CompletedAt)
			}
		})
	}
}

func TestEarlyEndTerminatesInFlight(t *testing.T) {
	s := rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{named("a", interval("1m")), named("job")}}
	st := rampv1.AnalysisRunStatus{MetricResults: results(map[string]string{"a": "F"})}
	st.MetricResults = append(st.MetricResults, rampv1.MetricResult{Name: "job", Phase: running,
		Measurements: []rampv1.Measurement{{Phase: running, ResumeAt: &metav1.Time{Time: at("1h")}}}})
	if next, _ := Assess(s, &st, t0); st.Phase != running || !next.Equal(t0) {
		t.Fatalf("run %s, next %v: the job must be terminated first", st.Phase, next)
	}
	tasks, _ := Tasks(s, st, t0)
	if len(tasks) != 1 || tasks[0].Metric.Name != "job" || !tasks[0].Terminate {
		t.Fatalf("tasks %+v", tasks)
	}
	done := metav1.NewTime(t0)
	Record(ResultFor(s, &st, "job"), rampv1.Measurement{Phase: successful, Message: "Metric Terminated", FinishedAt: &done}, 10)
	if next, _ := Assess(s, &st, t0); st.Phase != failed || !next.IsZero() || st.RunSummary.Successful != 1 || st.RunSummary.Failed != 1 {
		t.Fatalf("run %s %q next %v %+v", st.Phase, st.Message, next, st.RunSummary)
	}
}
