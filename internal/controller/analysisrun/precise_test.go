package analysisrun

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
)

// The next measurement is due one interval after the exact finish while
// the process knows it, and one interval after the stored (rounded-up)
// finishedAt after a restart: never early, and not a second late.
func TestScheduleFromExactFinish(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 10, 300_000_000, time.UTC) // finished at 10.3 s
	stored := finishedAt(t0)
	if !stored.Time.Equal(t0.Truncate(time.Second).Add(time.Second)) {
		t.Fatalf("finishedAt(%v) = %v, want rounded up", t0, stored)
	}
	count := intstr.FromInt32(3)
	spec := rampv1.AnalysisRunSpec{Metrics: []rampv1.Metric{{Name: "m", Interval: "2s", Count: &count,
		Provider: rampv1.MetricProvider{Web: &rampv1.WebMetric{URL: "http://x"}}}}}
	started := metav1.NewTime(t0.Add(-time.Second).Truncate(time.Second))
	status := &rampv1.AnalysisRunStatus{Phase: rampv1.AnalysisPhaseRunning, StartedAt: &started,
		MetricResults: []rampv1.MetricResult{{Name: "m", Phase: rampv1.AnalysisPhaseRunning, Count: 1, Successful: 1,
			Measurements: []rampv1.Measurement{{Phase: rampv1.AnalysisPhaseSuccessful, StartedAt: &started, FinishedAt: &stored}}}}}

	var f finishTimes
	restart, err := analysis.Assess(spec, status.DeepCopy(), t0)
	if err != nil || !restart.Equal(stored.Add(2*time.Second)) {
		t.Fatalf("without the exact time: next %v (%v), want %v", restart, err, stored.Add(2*time.Second))
	}
	f.record("uid", "m", stored, t0)
	exact, err := analysis.Assess(spec, f.schedule("uid", status), t0)
	if err != nil || !exact.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("with the exact time: next %v (%v), want %v", exact, err, t0.Add(2*time.Second))
	}
	if got := status.MetricResults[0].Measurements[0].FinishedAt.Time; !got.Equal(stored.Time) {
		t.Errorf("schedule changed the status to be written: %v", got)
	}
	f.forget("uid")
	if next, _ := analysis.Assess(spec, f.schedule("uid", status), t0); !next.Equal(restart) {
		t.Errorf("after forget: %v, want %v", next, restart)
	}
}
