package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ramp-rollouts/ramp/internal/buildinfo"
)

// buildInfo is the running build as two constant gauges: upstream's
// argo_rollouts_controller_info (its one label, version) for dashboards
// written for upstream, and ramp_build_info with the commit and Go version
// too (the <prefix>_build_info convention of Prometheus's own exporters).
func buildInfo() []prometheus.Collector {
	b := buildinfo.Get()
	one := func() float64 { return 1 }
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "argo_rollouts_controller_info", Help: "Running Argo-rollouts version",
			ConstLabels: prometheus.Labels{"version": b.Version}}, one),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ramp_build_info",
			Help:        "The running Ramp build: always 1, its version, commit and Go version as labels.",
			ConstLabels: prometheus.Labels{"version": b.Version, "commit": b.Commit, "goversion": b.GoVersion}}, one),
	}
}

// Register adds every family to reg, the gauges read from cache.
func Register(reg prometheus.Registerer, cache client.Reader) error {
	cs := append([]prometheus.Collector{&Objects{Cache: cache}, eventsTotal, EventsDropped, requests, decisions, pauseOvershoot},
		buildInfo()...)
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
