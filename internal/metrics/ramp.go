package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Ramp's own figures for operators (ramp_ prefix; docs/api.md).
var (
	decisions = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ramp_plan_decisions_total",
		Help: "Plans computed by the pure planner, by kind (rate: decisions per second)."}, []string{"kind"})
	pauseOvershoot = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "ramp_pause_overshoot_seconds",
		Help:    "How long after its due time each timed canary pause ended.",
		Buckets: []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5}})
)

// Decided counts one plan of kind.
func Decided(kind string) { decisions.WithLabelValues(kind).Inc() }

// PauseOvershoot records how late a timed pause ended (0 when early,
// which the planner never lets happen).
func PauseOvershoot(d time.Duration) { pauseOvershoot.Observe(max(d, 0).Seconds()) }
