package analysis

import (
	"fmt"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func TestRecordCounters(t *testing.T) {
	for _, c := range []struct {
		seq  string
		want rampv1.MetricResult // counters only
	}{
		{"", rampv1.MetricResult{}},
		{"S", rampv1.MetricResult{Count: 1, Successful: 1, ConsecutiveSuccess: 1}},
		{"F", rampv1.MetricResult{Count: 1, Failed: 1}},
		{"I", rampv1.MetricResult{Count: 1, Inconclusive: 1}},
		{"E", rampv1.MetricResult{Error: 1, ConsecutiveError: 1}},
		{"R", rampv1.MetricResult{}},
		{"SSS", rampv1.MetricResult{Count: 3, Successful: 3, ConsecutiveSuccess: 3}},
		{"SSF", rampv1.MetricResult{Count: 3, Successful: 2, Failed: 1}},
		{"SSI", rampv1.MetricResult{Count: 3, Successful: 2, Inconclusive: 1}},
		{"SSE", rampv1.MetricResult{Count: 2, Successful: 2, Error: 1, ConsecutiveError: 1}},
		{"EES", rampv1.MetricResult{Count: 1, Successful: 1, Error: 2, ConsecutiveSuccess: 1}},
		{"EEF", rampv1.MetricResult{Count: 1, Failed: 1, Error: 2}},
		{"EEI", rampv1.MetricResult{Count: 1, Inconclusive: 1, Error: 2}},
		{"FEEE", rampv1.MetricResult{Count: 1, Failed: 1, Error: 3, ConsecutiveError: 3}},
		{"SFSS", rampv1.MetricResult{Count: 4, Successful: 3, Failed: 1, ConsecutiveSuccess: 2}},
	} {
		r := measured(c.seq)
		got := rampv1.MetricResult{Count: r.Count, Successful: r.Successful, Failed: r.Failed, Inconclusive: r.Inconclusive,
			Error: r.Error, ConsecutiveError: r.ConsecutiveError, ConsecutiveSuccess: r.ConsecutiveSuccess}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: counters %+v, want %+v", c.seq, got, c.want)
		}
		if len(r.Measurements) != len(c.seq) {
			t.Errorf("%q: %d measurements kept", c.seq, len(r.Measurements))
		}
	}
}

func TestRecordReplacesInFlight(t *testing.T) {
	r := measured("SR")
	at := metav1.NewTime(t0)
	Record(&r, rampv1.Measurement{Phase: running, Message: "still running", ResumeAt: &at}, 10)
	if len(r.Measurements) != 2 || r.Measurements[1].Message != "still running" || r.Count != 1 {
		t.Fatalf("resumed measurement not replaced: %+v", r)
	}
	Record(&r, rampv1.Measurement{Phase: failed, Message: "job failed", FinishedAt: &at}, 10)
	if len(r.Measurements) != 2 || r.Measurements[1].Phase != failed || r.Count != 2 || r.Failed != 1 {
		t.Fatalf("completed measurement not replaced: %+v", r)
	}
	Record(&r, rampv1.Measurement{Phase: successful, FinishedAt: &at}, 10)
	if len(r.Measurements) != 3 {
		t.Fatalf("new measurement not appended: %d", len(r.Measurements))
	}
}

func TestRetention(t *testing.T) {
	for _, c := range []struct {
		keep, taken int32
		want        int
	}{
		{0, 25, 10}, // default
		{-1, 25, 10},
		{10, 9, 9},
		{3, 25, 3},
		{20, 25, 20},
		{1, 1, 1},
	} {
		r := rampv1.MetricResult{Name: "m"}
		for i := range c.taken {
			Record(&r, rampv1.Measurement{Phase: successful, Value: fmt.Sprint(i)}, c.keep)
		}
		if len(r.Measurements) != c.want || r.Count != c.taken {
			t.Errorf("keep %d of %d: kept %d (count %d), want %d", c.keep, c.taken, len(r.Measurements), r.Count, c.want)
			continue
		}
		if last := r.Measurements[len(r.Measurements)-1].Value; last != fmt.Sprint(c.taken-1) {
			t.Errorf("keep %d of %d: newest measurement dropped (last %s)", c.keep, c.taken, last)
		}
	}
}

func TestRetentionLimit(t *testing.T) {
	s := rampv1.AnalysisRunSpec{MeasurementRetention: []rampv1.MeasurementRetention{
		{MetricName: "success-rate", Limit: 3},
		{MetricName: "error-.*", Limit: 20},
		{MetricName: "zero", Limit: 0},
		{MetricName: ".*", Limit: 5},
	}}
	for name, want := range map[string]int32{"success-rate": 3, "error-rate": 20, "zero": 10, "latency": 5} {
		if got := RetentionLimit(s, name); got != want {
			t.Errorf("RetentionLimit(%q) = %d, want %d", name, got, want)
		}
	}
	if got := RetentionLimit(rampv1.AnalysisRunSpec{}, "x"); got != 10 {
		t.Errorf("default RetentionLimit = %d", got)
	}
}

func TestResultFor(t *testing.T) {
	s := rampv1.AnalysisRunSpec{DryRun: []rampv1.DryRun{{MetricName: "dry-.*"}}}
	var st rampv1.AnalysisRunStatus
	a := ResultFor(s, &st, "a")
	a.Count = 7
	d := ResultFor(s, &st, "dry-x")
	if !d.DryRun || d.Phase != running || len(st.MetricResults) != 2 {
		t.Fatalf("new results: %+v", st.MetricResults)
	}
	if again := ResultFor(s, &st, "a"); again.Count != 7 || again.DryRun || len(st.MetricResults) != 2 {
		t.Fatalf("existing result not found: %+v", st.MetricResults)
	}
}
