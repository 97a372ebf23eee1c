package controller

import (
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/job"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/prometheus"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/web"
	"github.com/ramp-rollouts/ramp/internal/controller/analysisrun"
	"github.com/ramp-rollouts/ramp/internal/controller/experiment"
	"github.com/ramp-rollouts/ramp/internal/controller/rollout"
	"github.com/ramp-rollouts/ramp/internal/controller/writelog"
	"github.com/ramp-rollouts/ramp/internal/metrics"
	"github.com/ramp-rollouts/ramp/internal/registry"
	"github.com/ramp-rollouts/ramp/internal/traffic"
	"github.com/ramp-rollouts/ramp/internal/traffic/alb"
	"github.com/ramp-rollouts/ramp/internal/traffic/gatewayapi"
	"github.com/ramp-rollouts/ramp/internal/traffic/istio"
	"github.com/ramp-rollouts/ramp/internal/traffic/nginx"
	"github.com/ramp-rollouts/ramp/internal/traffic/smi"
)

// Options configure the controllers.
type Options struct {
	// MaxConcurrentReconciles per controller; 0 means the default (10).
	MaxConcurrentReconciles int
}

// Setup registers every controller with the manager. The reconcilers,
// routers and providers write through one client and record Events through
// recorders that log each write at V(1) (writelog).
func Setup(mgr ctrl.Manager, o Options) error {
	if o.MaxConcurrentReconciles == 0 {
		o.MaxConcurrentReconciles = 10
	}
	c := writelog.Client(mgr.GetClient())
	routers, err := Routers(c)
	if err != nil {
		return err
	}
	r := &rollout.Reconciler{Client: c, Recorder: metrics.CountingRecorder{EventRecorder: Recorder(mgr, rampv1.ControllerAgentName)}, Clock: clock.RealClock{},
		Routers: routers}
	if err := r.SetupWithManager(mgr, o.MaxConcurrentReconciles); err != nil {
		return err
	}
	providers, err := Providers(mgr)
	if err != nil {
		return err
	}
	ex := &experiment.Reconciler{Client: c, Recorder: Recorder(mgr, "experiments-controller"), Clock: clock.RealClock{},
		Live: mgr.GetAPIReader()}
	if err := ex.SetupWithManager(mgr, o.MaxConcurrentReconciles); err != nil {
		return err
	}
	ar := &analysisrun.Reconciler{Client: c, Secrets: mgr.GetAPIReader(), Providers: providers,
		Clock: clock.RealClock{}, Evaluator: analysis.NewEvaluator()}
	return ar.SetupWithManager(mgr, o.MaxConcurrentReconciles)
}

// Recorder is the manager's Event recorder for source component name, each
// Event logged at V(1) (writelog).
func Recorder(mgr ctrl.Manager, name string) events.EventRecorder {
	return writelog.Recorder(mgr.GetEventRecorder(name), mgr.GetLogger().WithName("events"))
}

// Routers is the traffic router registry of this controller build, keyed
// by the trafficRouting field each is configured under. A new router is one
// package and one line here (see docs/extending.md).
func Routers(c client.Client) (*registry.Registry[traffic.Router], error) {
	reg := traffic.NewRegistry()
	for name, rt := range map[string]traffic.Router{
		traffic.GatewayAPI: gatewayapi.New(c),
		traffic.Istio:      istio.New(c),
		traffic.Nginx:      nginx.New(c),
		traffic.ALB:        alb.New(c),
		traffic.SMI:        smi.New(c),
	} {
		if err := reg.Register(name, rt); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// providerSet is every metric provider of this build, by name; its names
// are provider.Supported (TestProvidersSupported).
func providerSet(c client.Client, live client.Reader) map[string]provider.Provider {
	return map[string]provider.Provider{
		"job":        job.New(c, live),
		"prometheus": prometheus.New(),
		"web":        web.New(),
	}
}

// Providers is the metric provider registry of this controller build. A
// new provider is one package, one line in providerSet and its name in
// provider.Supported (see docs/extending.md).
func Providers(mgr ctrl.Manager) (*registry.Registry[provider.Provider], error) {
	reg := provider.NewRegistry()
	for name, p := range providerSet(writelog.Client(mgr.GetClient()), mgr.GetAPIReader()) {
		if err := reg.Register(name, p); err != nil {
			return nil, err
		}
	}
	return reg, nil
}
