// Package outcome holds what every planner's output shares: the Events a
// plan asks the reconciler to record, the earliest wake-up it asks for,
// and the one way a reconciler records those Events. It is pure: it
// imports no client (the recorder is the one method a reconciler's
// EventRecorder has).
package outcome

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Event is a Kubernetes Event a plan asks for on the object it plans.
type Event struct {
	Warning bool
	Reason  string
	Message string
}

// Type is the Event's type: Warning or Normal.
func (e Event) Type() string {
	if e.Warning {
		return corev1.EventTypeWarning
	}
	return corev1.EventTypeNormal
}

// Recorder is the part of client-go's events.EventRecorder Record uses.
type Recorder interface {
	Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any)
}

// Record records the events on obj, in order, the reason as the action.
func Record(rec Recorder, obj runtime.Object, events []Event) {
	for _, e := range events {
		rec.Eventf(obj, nil, e.Type(), e.Reason, e.Reason, "%s", e.Message)
	}
}

// Sooner is the wake-up to keep when a plan that wakes at cur (0: never)
// must also wake after d: the earlier of the two. A d that is already due
// (0 or less) wakes at once (1 ms).
func Sooner(cur, d time.Duration) time.Duration {
	if d <= 0 {
		d = time.Millisecond
	}
	if cur == 0 || d < cur {
		return d
	}
	return cur
}
