package analysis

import (
	"fmt"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// MinInterval is the shortest wait between two measurements of a metric,
// whatever its interval says: a metric is never measured more often than
// once a second (ValidateMetric rejects an interval at or below 0; one
// below a second is waited as a second).
const MinInterval = time.Second

// Next says when a metric needs its next measurement.
type Next struct {
	// Due: a measurement must be taken now, or with Resume, the metric's
	// in-flight measurement resumed (terminated when the run is
	// terminating).
	Due bool
	// Resume: the metric's last measurement is in flight; Due and At
	// concern it rather than a new measurement.
	Resume bool
	// At is when the measurement is (or was) due. It is zero when nothing
	// is scheduled: the metric is complete or has taken its count, the run
	// is terminating, or an in-flight measurement has no resumeAt (its
	// provider's own watch wakes the controller, as upstream).
	At time.Time
}

// NextMeasurement decides whether metric m, with result r so far (nil when
// it has none), needs a measurement at now, and when. startedAt is when the
// run started. As in Argo Rollouts:
//   - the first measurement is due at startedAt + initialDelay;
//   - the next one at the last measurement's finishedAt + interval (at
//     least MinInterval), or + 10s after an Error
//     (DefaultErrorRetryInterval, whatever the interval);
//   - none once count measurements (errors excluded) were taken; without
//     count and interval, count is 1; with an interval only, measurements go
//     on until the run is terminated (or a limit ends the metric);
//   - a terminating run takes no new measurement and ends the in-flight one
//     at once (upstream waits for its resumeAt; Ramp does not leave it
//     running past the end of the run).
func NextMeasurement(m rampv1.Metric, r *rampv1.MetricResult, startedAt time.Time, terminating bool, now time.Time) (Next, error) {
	if r != nil && r.Phase.Completed() {
		return Next{}, nil
	}
	var last *rampv1.Measurement
	if r != nil && len(r.Measurements) > 0 {
		last = &r.Measurements[len(r.Measurements)-1]
	}
	if last != nil && !last.Phase.Completed() {
		switch {
		case terminating:
			return Next{Due: true, Resume: true, At: now}, nil
		case last.ResumeAt != nil:
			return Next{Due: !now.Before(last.ResumeAt.Time), Resume: true, At: last.ResumeAt.Time}, nil
		}
		return Next{Due: true, Resume: true}, nil
	}
	if terminating {
		return Next{}, nil
	}
	if last == nil {
		delay, err := m.InitialDelay.Duration()
		if err != nil {
			return Next{}, fmt.Errorf("metric %q: initialDelay: %w", m.Name, err)
		}
		return dueAt(startedAt.Add(delay), now), nil
	}
	l, err := limitsOf(m)
	if err != nil {
		return Next{}, err
	}
	if l.count > 0 && r.Count >= l.count {
		return Next{}, nil
	}
	var wait time.Duration
	switch {
	case last.Phase == rampv1.AnalysisPhaseError:
		wait = rampv1.DefaultErrorRetryInterval
	case m.Interval != "":
		if wait, err = m.Interval.Duration(); err != nil {
			return Next{}, fmt.Errorf("metric %q: interval: %w", m.Name, err)
		}
		wait = max(wait, MinInterval)
	default:
		// No interval and no error to retry: count (1) was reached above
		// unless the spec asks for count > 1 without an interval, which
		// ValidateMetrics rejects.
		return Next{}, nil
	}
	return dueAt(finishedAt(*last, now).Add(wait), now), nil
}

func dueAt(at, now time.Time) Next {
	return Next{Due: !now.Before(at), At: at}
}

// finishedAt is when a completed measurement finished: finishedAt, else
// startedAt, else now (a provider that stamped neither).
func finishedAt(m rampv1.Measurement, now time.Time) time.Time {
	switch {
	case m.FinishedAt != nil:
		return m.FinishedAt.Time
	case m.StartedAt != nil:
		return m.StartedAt.Time
	}
	return now
}

// Task is a measurement the controller must run now for one metric.
type Task struct {
	Metric rampv1.Metric
	// Resume: continue the metric's in-flight (last) measurement instead of
	// starting one; Record replaces it with the new state.
	Resume bool
	// Terminate: the run is terminating; end the in-flight measurement
	// (set with Resume only).
	Terminate bool
}

// Tasks lists the measurements due at now for the run, in spec order. A
// completed run has none; an invalid spec (ValidateRun) is an error and
// no measurement is taken (Assess then ends the run in Error).
func Tasks(spec rampv1.AnalysisRunSpec, status rampv1.AnalysisRunStatus, now time.Time) ([]Task, error) {
	if status.Phase.Completed() {
		return nil, nil
	}
	if err := ValidateRun(spec); err != nil {
		return nil, fmt.Errorf("analysis spec invalid: %w", err)
	}
	terminating := Terminating(spec, status)
	var tasks []Task
	for _, m := range spec.Metrics {
		n, err := NextMeasurement(m, resultOf(&status, m.Name), startedAt(status, now), terminating, now)
		if err != nil {
			return nil, err
		}
		if n.Due {
			tasks = append(tasks, Task{Metric: m, Resume: n.Resume, Terminate: n.Resume && terminating})
		}
	}
	return tasks, nil
}

// nextWake is the earliest time any metric of the run needs a measurement
// (zero when none is scheduled).
func nextWake(spec rampv1.AnalysisRunSpec, status *rampv1.AnalysisRunStatus, terminating bool, now time.Time) (time.Time, error) {
	return wake(spec, status, terminating, nil, now)
}

// Wake is when a run whose status was assessed at now (Assess) next needs a
// reconcile, leaving out the metrics busy reports true for: their
// measurement is in flight and its end wakes the run. Zero when nothing is
// scheduled.
func Wake(spec rampv1.AnalysisRunSpec, status *rampv1.AnalysisRunStatus, busy func(metric string) bool, now time.Time) (time.Time, error) {
	if status.Phase.Completed() {
		return time.Time{}, nil
	}
	return wake(spec, status, Terminating(spec, *status), busy, now)
}

func wake(spec rampv1.AnalysisRunSpec, status *rampv1.AnalysisRunStatus, terminating bool, busy func(string) bool, now time.Time) (time.Time, error) {
	var next time.Time
	for _, m := range spec.Metrics {
		if busy != nil && busy(m.Name) {
			continue
		}
		n, err := NextMeasurement(m, resultOf(status, m.Name), startedAt(*status, now), terminating, now)
		if err != nil {
			return time.Time{}, err
		}
		if !n.At.IsZero() && (next.IsZero() || n.At.Before(next)) {
			next = n.At
		}
	}
	return next, nil
}

func startedAt(status rampv1.AnalysisRunStatus, now time.Time) time.Time {
	if status.StartedAt != nil {
		return status.StartedAt.Time
	}
	return now
}
