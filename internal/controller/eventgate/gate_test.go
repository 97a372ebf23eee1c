package eventgate

import (
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/ramp-rollouts/ramp/internal/metrics"
)

type counting struct {
	events.EventRecorder
	n int
}

func (c *counting) Eventf(runtime.Object, runtime.Object, string, string, string, string, ...any) {
	c.n++
}

// TestEventGate: a flood of Events is admitted at the gate's rate after one
// burst, never more (the goroutines client-go starts are bounded by it), and
// every Event not admitted is counted in ramp_events_dropped_total.
func TestEventGate(t *testing.T) {
	const qps = 10
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	sink := &counting{}
	rec := New(qps, clk).Recorder(sink, logr.Discard())
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	const reason = "TestEventGateFlood"
	dropped := func() float64 { return testutil.ToFloat64(metrics.EventsDropped.WithLabelValues(reason)) }
	before := dropped()

	// 100 Events every 100 ms for 10 s: 10,000 offered.
	offered := 0
	for tick := 0; tick < 100; tick++ {
		for i := 0; i < 100; i++ {
			rec.Eventf(pod, nil, corev1.EventTypeNormal, reason, "Test", "event %d", offered)
			offered++
		}
		if max := qps*BurstSeconds + qps*tick/10; sink.n > max {
			t.Fatalf("after %d ms %d Events admitted, the bound is %d", tick*100, sink.n, max)
		}
		clk.SetTime(clk.Now().Add(100 * time.Millisecond))
	}
	// The burst (50) and 9.9 s at 10 a second (99): 149.
	if want := qps*BurstSeconds + 99; sink.n != want {
		t.Errorf("%d Events admitted in 10 s of flood, want %d (the burst and the rate)", sink.n, want)
	}
	if got := dropped() - before; got != float64(offered-sink.n) {
		t.Errorf("ramp_events_dropped_total{reason=%q} rose by %v, want %d (every Event not admitted)", reason, got, offered-sink.n)
	}

	// After a quiet hour the gate holds one burst again, no more.
	clk.SetTime(clk.Now().Add(time.Hour))
	admitted := sink.n
	for i := 0; i < 1000; i++ {
		rec.Eventf(pod, nil, corev1.EventTypeNormal, reason, "Test", "again")
	}
	if got := sink.n - admitted; got != qps*BurstSeconds {
		t.Errorf("%d Events admitted after a quiet hour, want one burst (%d)", got, qps*BurstSeconds)
	}
}
