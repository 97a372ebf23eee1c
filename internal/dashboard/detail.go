package dashboard

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// AnalysisRun is what the rollout page plots of a run: every measurement
// of every metric, with the conditions it was judged against. The
// providers' configuration (queries, addresses, header references) is left
// out.
type AnalysisRun struct {
	Name        string                `json:"name"`
	Phase       rampv1.AnalysisPhase  `json:"phase"`
	Message     string                `json:"message,omitempty"`
	StartedAt   *time.Time            `json:"startedAt,omitempty"`
	CompletedAt *time.Time            `json:"completedAt,omitempty"`
	Metrics     []MetricCondition     `json:"metrics"`
	Results     []rampv1.MetricResult `json:"metricResults"`
}

// MetricCondition is a metric's verdict rules.
type MetricCondition struct {
	Name             string `json:"name"`
	SuccessCondition string `json:"successCondition,omitempty"`
	FailureCondition string `json:"failureCondition,omitempty"`
	Interval         string `json:"interval,omitempty"`
}

func analysisRuns(runs []rampv1.AnalysisRun) []AnalysisRun {
	out := make([]AnalysisRun, 0, len(runs))
	for _, r := range runs {
		a := AnalysisRun{Name: r.Name, Phase: r.Status.Phase, Message: r.Status.Message, Results: r.Status.MetricResults}
		if t := r.Status.StartedAt; t != nil {
			a.StartedAt = &t.Time
		}
		if t := r.Status.CompletedAt; t != nil {
			a.CompletedAt = &t.Time
		}
		for _, m := range r.Spec.Metrics {
			a.Metrics = append(a.Metrics, MetricCondition{m.Name, m.SuccessCondition, m.FailureCondition, string(m.Interval)})
		}
		out = append(out, a)
	}
	return out
}

// Event is one Kubernetes Event about the rollout.
type Event struct {
	Type     string    `json:"type"`
	Reason   string    `json:"reason"`
	Message  string    `json:"message"`
	Count    int32     `json:"count,omitempty"`
	LastSeen time.Time `json:"lastSeen"`
}

func eventsOf(evs []corev1.Event) []Event {
	out := make([]Event, 0, len(evs))
	for _, e := range evs {
		out = append(out, Event{e.Type, e.Reason, e.Message, e.Count, eventTime(e)})
	}
	return out
}

// eventTime is when an Event was last seen, whichever field its recorder
// filled.
func eventTime(e corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case e.Series != nil:
		return e.Series.LastObservedTime.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}
