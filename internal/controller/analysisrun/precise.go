package analysisrun

import (
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// finishTimes remembers when this process really finished each metric's
// last measurement. Status holds finishedAt rounded up to the second (never
// early after a restart); while the process runs, the next measurement is
// scheduled from the exact time instead, so it comes one interval later,
// not up to a second more.
type finishTimes struct {
	m sync.Map // finishKey -> finished
}

type finishKey struct {
	run    types.UID
	metric string
}

type finished struct {
	stored  time.Time // finishedAt as written to status
	precise time.Time
}

func (f *finishTimes) record(run types.UID, metric string, stored metav1.Time, precise time.Time) {
	f.m.Store(finishKey{run, metric}, finished{stored: stored.Time, precise: precise})
}

// schedule returns a copy of status whose last completed measurements carry
// the exact finish time where this process knows it (the stored value is
// the rounded-up one it wrote).
func (f *finishTimes) schedule(run types.UID, status *rampv1.AnalysisRunStatus) *rampv1.AnalysisRunStatus {
	view := status.DeepCopy()
	for i := range view.MetricResults {
		r := &view.MetricResults[i]
		n := len(r.Measurements)
		if n == 0 || r.Measurements[n-1].FinishedAt == nil {
			continue
		}
		v, ok := f.m.Load(finishKey{run, r.Name})
		if !ok {
			continue
		}
		last := r.Measurements[n-1].FinishedAt
		if fin := v.(finished); fin.stored.Equal(last.Truncate(time.Second)) || fin.stored.Equal(last.Time) {
			last.Time = fin.precise
		}
	}
	return view
}

// forget drops what is known about a run (it completed or is gone).
func (f *finishTimes) forget(run types.UID) {
	f.m.Range(func(k, _ any) bool {
		if k.(finishKey).run == run {
			f.m.Delete(k)
		}
		return true
	})
}
