package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

var eventsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rollout_events_total", Help: "Count of rollout events"},
	append(append([]string{}, nsName...), "type", "reason"))

// CountingRecorder counts in rollout_events_total every Event recorded
// about a Rollout, by type and reason, and passes it on.
type CountingRecorder struct {
	events.EventRecorder
}

func (c CountingRecorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	if ro, ok := regarding.(*rampv1.Rollout); ok {
		eventsTotal.WithLabelValues(ro.Namespace, ro.Name, eventtype, reason).Inc()
	}
	c.EventRecorder.Eventf(regarding, related, eventtype, reason, action, note, args...)
}

// EventsDropped is ramp_events_dropped_total.
var EventsDropped = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ramp_events_dropped_total",
	Help: "Events not recorded because they came faster than the Events client's rate (by Event reason)"}, []string{"reason"})

// EventDropped counts an Event of this reason dropped before recording
// (internal/controller/eventgate). Reasons are the constants of Ramp's
// code, so the series stay few.
func EventDropped(reason string) {
	EventsDropped.WithLabelValues(reason).Inc()
}
