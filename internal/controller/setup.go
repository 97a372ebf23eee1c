package controller

import (
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/job"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/prometheus"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/web"
	"github.com/ramp-rollouts/ramp/internal/controller/analysisrun"
	"github.com/ramp-rollouts/ramp/internal/controller/rollout"
	"github.com/ramp-rollouts/ramp/internal/registry"
)

// Options configure the controllers.
type Options struct {
	// MaxConcurrentReconciles per controller; 0 means the default (10).
	MaxConcurrentReconciles int
}

// Setup registers every controller with the manager.
func Setup(mgr ctrl.Manager, o Options) error {
	if o.MaxConcurrentReconciles == 0 {
		o.MaxConcurrentReconciles = 10
	}
	r := &rollout.Reconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("rollouts-controller"), Clock: clock.RealClock{}}
	if err := r.SetupWithManager(mgr, o.MaxConcurrentReconciles); err != nil {
		return err
	}
	providers, err := Providers(mgr)
	if err != nil {
		return err
	}
	ar := &analysisrun.Reconciler{Client: mgr.GetClient(), Secrets: mgr.GetAPIReader(), Providers: providers,
		Clock: clock.RealClock{}, Evaluator: analysis.NewEvaluator()}
	return ar.SetupWithManager(mgr, o.MaxConcurrentReconciles)
}

// Providers is the metric provider registry of this controller build. A
// new provider is one package and one line here (see docs/extending.md).
func Providers(mgr ctrl.Manager) (*registry.Registry[provider.Provider], error) {
	reg := provider.NewRegistry()
	for name, p := range map[string]provider.Provider{
		"job":        job.New(mgr.GetClient(), mgr.GetAPIReader()),
		"prometheus": prometheus.New(),
		"web":        web.New(),
	} {
		if err := reg.Register(name, p); err != nil {
			return nil, err
		}
	}
	return reg, nil
}
