package analysis

import (
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func named(name string, opts ...func(*rampv1.Metric)) rampv1.Metric {
	return spec(append(opts, func(m *rampv1.Metric) { m.Name = name })...)
}

// results spells each metric's measurements, finished at t0 (see measured).
func results(seqs map[string]string) []rampv1.MetricResult {
	var rs []rampv1.MetricResult
	for _, name := range []string{"a", "b", "c", "d"} {
		if seq, ok := seqs[name]; ok {
			r := measured(seq)
			r.Name = name
			rs = append(rs, r)
		}
	}
	return rs
}

func TestAssess(t *testing.T) {
	every := interval("1m")
	for _, c := range []struct {
		name    string
		spec    rampv1.AnalysisRunSpec
		seqs    map[string]string
		want    rampv1.AnalysisPhase
		msg     string
		summary rampv1.RunSummary
		dry     rampv1.RunSummary
		next    time.Time // zero: none
	}{
		{"nothing measured yet", rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{named("a"), named("b", delay("1m"))}},
			nil, running, "", rampv1.RunSummary{Count: 2}, rampv1.RunSummary{}, t0},
		{"one metric done, one waiting for its delay", rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{named("a"), named("b", delay("1m"))}},
			map[string]string{"a": "S"}, running, "", rampv1.RunSummary{Count: 2, Successful: 1}, rampv1.RunSummary{}, at("1m")},
		{"all successful", rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{named("a"), named("b", every, count(2))}},
			map[string]string{"a": "S", "b": "SS"}, successful, "", rampv1.RunSummary{Count: 2, Successful: 2}, rampv1.RunSummary{}, time.Time{}},
		{"failure ends the run early", rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{named("a", every), named("b", every)}},
			map[string]string{"a": "SS", "b": "F"}, failed, `Metric "b" assessed Failed due to failed (1) > failureLimit (0): "Error Message: mF"`,
			rampv1.RunSummary{Count: 2, Successful: 1, Failed: 1}, rampv1.RunSummary{}, time.Time{}},
		{"error ends the run early", rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{named("a", every), named("b", every)}},
			map[string]string{"a": "S", "b": "EEEEE"}, errored, `Metric "b" assessed Error due to consecutiveErrors (5) > consecutiveErrorLimit (4): "Error Message: mE"`,
			rampv1.RunSummary{Count: 2, Successful: 1, Error: 1}, rampv1.RunSummary{}, time.Time{}},
		{"inconclusive ends the run early", rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{named("a", every), named("b")}},
			map[string]string{"a": "S", "b": "I"}, inconclusive, `Metric "b" assessed Inconclusive due to inconclusive (1) > inconclusiveLimit (0): "Error Message: mI"`,
			rampv1.RunSummary{Count: 2, Successful: 1, Inconclusive: 1}, rampv1.RunSummary{}, time.Time{}},
		{"worst wins: Failed over Error", rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{named("a"), named("b"), named("c")}},
			map[string]string{"a": "EEEEE", "b": "F", "c": "I"}, failed, `Metric "b" assessed Failed due to failed (1) > failureLimit (0): "Error Message: mF"`,
			rampv1.RunSummary{Count: 3, Failed: 1, Error: 1, Inconclusive: 1}, rampv1.RunSummary{}, time.Time{}},
		{"worst wins: Error over Inconclusive", rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{named("a"), named("b")}},
			map[string]string{"a": "I", "b": "EEEEE"}, errored, `Metric "b" assessed Error due to consecutiveErrors (5) > consecutiveErrorLimit (4): "Error Message: mE"`,
			rampv1.RunSummary{Count: 2, Error: 1, Inconclusive: 1}, rampv1.RunSummary{}, time.Time{}},
		{"in-flight measurement must be terminated first", rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{named("a", every), named("b")}},
			map[string]string{"a": "F", "b": "R"}, running, "", rampv1.RunSummary{Count: 2, Failed: 1}, rampv1.RunSummary{}, t0},
		{"dry-run failure does not end the run", rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{named("a", every), named("b", every)},
			DryRun: []rampv1.DryRun{{MetricName: "b"}}}, map[string]string{"a": "S", "b": "F"}, running, "",
			rampv1.RunSummary{Count: 1}, rampv1.RunSummary{Count: 1, Failed: 1}, at("1m")},
		{"dry-run failure, run completes Successful", rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{named("a"), named("b")},
			DryRun: []rampv1.DryRun{{MetricName: "b"}}}, map[string]string{"a": "S", "b": "F"}, successful, "",
			rampv1.RunSummary{Count: 1, Successful: 1}, rampv1.RunSummary{Count: 1, Failed: 1}, time.Time{}},
		{"all metrics dry-run", rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{named("a"), named("b")},
			DryRun: []rampv1.DryRun{{MetricName: ".*"}}}, map[string]string{"a": "EEEEE", "b": "F"}, successful, "",
			rampv1.RunSummary{}, rampv1.RunSummary{Count: 2, Failed: 1, Error: 1}, time.Time{}},
		{"terminated", rampv1.AnalysisRunSpec{Terminate: true, Metrics: []rampv1.Metric{named("a", every), named("b", delay("1h"))}},
			map[string]string{"a": "SS"}, successful, "Run Terminated", rampv1.RunSummary{Count: 2, Successful: 1}, rampv1.RunSummary{}, time.Time{}},
		{"terminated after a failure", rampv1.AnalysisRunSpec{Terminate: true, Metrics: []rampv1.Metric{named("a", every, failureLimit(0))}},
			map[string]string{"a": "SF"}, failed, `Metric "a" assessed Failed due to failed (1) > failureLimit (0): "Error Message: mF"`,
			rampv1.RunSummary{Count: 1, Failed: 1}, rampv1.RunSummary{}, time.Time{}},
		{"next wake is the earliest metric", rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{named("a", interval("5m")), named("b", interval("3s")), named("c")}},
			map[string]string{"a": "S", "b": "S", "c": "R"}, running, "", rampv1.RunSummary{Count: 3}, rampv1.RunSummary{}, at("3s")},
		{"invalid spec", rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{named("a", interval("3s"), count(2), failureLimit(3))}},
			nil, errored, "Analysis spec invalid: metrics[0]: count must be >= failureLimit", rampv1.RunSummary{}, rampv1.RunSummary{}, time.Time{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := rampv1.AnalysisRunStatus{MetricResults: results(c.seqs)}
			next, err := Assess(c.spec, &st, t0)
			if err != nil || st.Phase != c.want || st.Message != c.msg || !next.Equal(c.next) {
				t.Fatalf("Assess = %s %q next %v (%v); want %s %q next %v", st.Phase, st.Message, next, err, c.want, c.msg, c.next)
			}
			if !strings.HasPrefix(st.Message, "Analysis spec invalid") {
				if st.RunSummary != c.summary || st.DryRunSummary == nil || *st.DryRunSummary != c.dry {
					t.Fatalf("summaries %+v / %+v; want %+v / %+v", st.RunSummary, st.DryRunSummary, c.summary, c.dry)
				}
			}
			if st.StartedAt == nil || !st.StartedAt.Time.Equal(t0) || (st.Phase.Completed() != (st.CompletedAt != nil)) {
				t.Fatalf("startedAt %v completedAt %v", st.StartedAt, st.CompletedAt)
			}
		})
	}
}

func TestAssessMetricResults(t *testing.T) {
	s := rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{named("a", interval("1m")), named("b", interval("1m"))},
		DryRun: []rampv1.DryRun{{MetricName: "b"}}}
	st := rampv1.AnalysisRunStatus{MetricResults: results(map[string]string{"a": "S", "b": "SF"})}
	if _, err := Assess(s, &st, t0); err != nil {
		t.Fatal(err)
	}
	a, b := st.MetricResults[0], st.MetricResults[1]
	if a.Phase != running || a.DryRun || !b.DryRun || b.Phase != failed ||
		b.Message != "Metric assessed Failed due to failed (1) > failureLimit (0)" {
		t.Fatalf("metric results: a %s %v %q, b %s %v %q", a.Phase, a.DryRun, a.Message, b.Phase, b.DryRun, b.Message)
	}
}

func TestAssessLeavesCompletedRunAlone(t *testing.T) {
	done := metav1.NewTime(t0)
	st := rampv1.AnalysisRunStatus{Phase: failed, Message: "x", CompletedAt: &done, MetricResults: results(map[string]string{"a": "S"})}
	before := *st.DeepCopy()
	next, err := Assess(rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{named("a")}}, &st, at("1h"))
	if err != nil || !next.IsZero() || !reflect.DeepEqual(before, st) {
		t.Fatalf("completed run changed: %+v (next %v, %v)", st, next, err)
	}
}

func TestTerminating(t *testing.T) {
	s := rampv1.AnalysisRunSpec{DryRun: []rampv1.DryRun{{MetricName: "dry"}}}
	for _, c := range []struct {
		terminate bool
		results   []rampv1.MetricResult
		want      bool
	}{
		{false, nil, false},
		{true, nil, true},
		{false, []rampv1.MetricResult{{Name: "a", Phase: successful}, {Name: "b", Phase: running}}, false},
		{false, []rampv1.MetricResult{{Name: "dry", Phase: failed}, {Name: "b", Phase: running}}, false},
		{false, []rampv1.MetricResult{{Name: "dry", Phase: failed}, {Name: "b", Phase: errored}}, true},
		{false, []rampv1.MetricResult{{Name: "a", Phase: inconclusive}}, true},
	} {
		s.Terminate = c.terminate
		if got := Terminating(s, rampv1.AnalysisRunStatus{MetricResults: c.results}); got != c.want {
			t.Errorf("Terminating(terminate %v, %+v) = %v", c.terminate, c.results, got)
		}
	}
}
