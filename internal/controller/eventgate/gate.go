package eventgate

import (
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/ramp-rollouts/ramp/internal/metrics"
)

// BurstSeconds is how many seconds' worth of Events a Gate admits at once
// after a quiet spell.
const BurstSeconds = 5

// Gate is a token bucket shared by all the recorders of one Events client:
// it holds at most rate×BurstSeconds tokens and gains rate per second.
type Gate struct {
	clock clock.PassiveClock
	rate  float64 // tokens per second
	burst float64

	mu     sync.Mutex
	tokens float64
	last   time.Time
}

// New returns a Gate admitting qps Events a second (the Events client's
// rate, --kube-api-qps) after a burst of BurstSeconds×qps. A qps ≤ 0 admits
// one Event a second.
func New(qps float64, clk clock.PassiveClock) *Gate {
	if qps <= 0 {
		qps = 1
	}
	burst := qps * BurstSeconds
	return &Gate{clock: clk, rate: qps, burst: burst, tokens: burst, last: clk.Now()}
}

// Admit takes a token if there is one.
func (g *Gate) Admit() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.clock.Now()
	if d := now.Sub(g.last); d > 0 {
		g.tokens = min(g.burst, g.tokens+d.Seconds()*g.rate)
		g.last = now
	}
	if g.tokens < 1 {
		return false
	}
	g.tokens--
	return true
}

// Recorder returns r behind g: an Event g does not admit is dropped,
// counted in ramp_events_dropped_total by its reason and logged at V(1) on l.
func (g *Gate) Recorder(r events.EventRecorder, l logr.Logger) events.EventRecorder {
	return &gated{EventRecorder: r, gate: g, log: l}
}

type gated struct {
	events.EventRecorder
	gate *Gate
	log  logr.Logger
}

func (r *gated) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	if r.gate.Admit() {
		r.EventRecorder.Eventf(regarding, related, eventtype, reason, action, note, args...)
		return
	}
	metrics.EventDropped(reason)
	if l := r.log.V(1); l.Enabled() {
		kv := []any{"type", eventtype, "reason", reason}
		if m, ok := regarding.(klog.KMetadata); ok {
			kv = append(kv, "object", klog.KObj(m))
		}
		l.Info("dropped event over the Events rate", kv...)
	}
}
