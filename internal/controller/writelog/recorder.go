package writelog

import (
	"fmt"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
)

// Recorder returns r with each Event logged at V(1) on l: the object it
// regards, its type, reason and message.
func Recorder(r events.EventRecorder, l logr.Logger) events.EventRecorder {
	return &loggingRecorder{EventRecorder: r, log: l}
}

type loggingRecorder struct {
	events.EventRecorder
	log logr.Logger
}

func (r *loggingRecorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	r.EventRecorder.Eventf(regarding, related, eventtype, reason, action, note, args...)
	l := r.log.V(1)
	if !l.Enabled() {
		return
	}
	kv := []any{"kind", typeName(regarding)}
	if m, ok := regarding.(klog.KMetadata); ok {
		kv = append(kv, "object", klog.KObj(m))
	}
	l.Info("recorded event", append(kv, "type", eventtype, "reason", reason, "message", fmt.Sprintf(note, args...))...)
}
