package metrics

import (
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// version is Ramp's module version as built, for argo_rollouts_controller_info.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "unknown"
}

// Register adds every family to reg, the gauges read from cache.
func Register(reg prometheus.Registerer, cache client.Reader) error {
	cs := []prometheus.Collector{&Objects{Cache: cache}, eventsTotal, EventsDropped, requests, decisions, pauseOvershoot,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "argo_rollouts_controller_info", Help: "Running Argo-rollouts version",
			ConstLabels: prometheus.Labels{"version": version()}}, func() float64 { return 1 })}
	for _, k := range []Kind{Rollouts, AnalysisRuns, Experiments} {
		cs = append(cs, k.collectors()...)
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
