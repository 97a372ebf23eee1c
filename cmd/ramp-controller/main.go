// Command ramp-controller is Ramp's progressive-delivery controller. It serves
// the argoproj.io/v1alpha1 API: it wires the manager (leader election, health
// probes, Prometheus metrics, informer caches) and registers the controllers.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sync/atomic"

	"go.uber.org/zap/zapcore"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/plugin"
	"github.com/ramp-rollouts/ramp/internal/buildinfo"
	"github.com/ramp-rollouts/ramp/internal/controller"
	"github.com/ramp-rollouts/ramp/internal/controller/foreign"
	"github.com/ramp-rollouts/ramp/internal/memlimit"
	"github.com/ramp-rollouts/ramp/internal/metrics"
)

// Leader election uses one Lease in the controller's own namespace (the
// install puts it in ramp-system): a namespaced Role, not cluster-wide access.
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=ramp-system,resources=leases,verbs=get;create;update

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ramp-controller:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	o, err := parseOptions(flag.CommandLine, args)
	if err != nil {
		return err
	}
	if o.printVersion {
		_, err := fmt.Println("ramp-controller", buildinfo.Get())
		return err
	}
	ctrl.SetLogger(zap.New(logEncoder(o.logFormat), zap.Level(logLevel(o.logLevel))))
	log := ctrl.Log.WithName("setup")

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := rampv1.AddToScheme(scheme); err != nil {
		return err
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = float32(o.qps), o.burst
	metrics.CountRequests(cfg)

	mopts := leaderElectionOptions(o)
	mopts.Scheme, mopts.Cache, mopts.Metrics, mopts.HealthProbeBindAddress = scheme, cacheOptions(o), metricsOptions(o), o.probeAddr
	mopts.PprofBindAddress = o.pprofAddr
	mopts.Client = client.Options{Cache: &client.CacheOptions{Unstructured: true}} // route objects come from informers too
	mgr, err := ctrl.NewManager(cfg, mopts)
	if err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	if err := metrics.Register(ctrlmetrics.Registry, mgr.GetCache()); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	if err := setupMetricPlugins(mgr.GetAPIReader(), o, log); err != nil {
		return err
	}
	defer plugin.StopAll()
	if err := controller.Setup(mgr, controller.Options{HTTPProviders: o.httpPolicy(), CredentialNamespace: os.Getenv("POD_NAMESPACE"),
		MaxConcurrentMeasurementsPerProvider: o.maxMeasurementsPerProvider, MaxProviderTimeout: o.maxProviderTimeout,
		ConditionEvaluationBudget: o.conditionBudget, SecretLabelSelector: o.secretSelector,
	}); err != nil {
		return err
	}
	if err := mgr.Add(&foreign.Reporter{Config: cfg, Namespace: o.namespace, InstanceID: o.instanceID,
		Recorder: controller.Recorder(mgr, rampv1.ControllerAgentName)}); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("ping", func(*http.Request) error { return nil }); err != nil {
		return err
	}
	if err := watchMemory(mgr); err != nil {
		return err
	}
	synced := &cacheSync{cache: mgr.GetCache()}
	if err := mgr.Add(synced); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("informers", synced.check); err != nil {
		return err
	}
	log.Info("starting manager", "namespace", o.namespace, "instanceID", o.instanceID, "leaderElection", o.leaderElect, "lease", o.leaseName())
	return mgr.Start(ctrl.SetupSignalHandler())
}

// watchMemory reads the container's memory limit from the cgroup, gives
// 90 % of it to the Go runtime as its soft limit (unless GOMEMLIMIT is set)
// and adds a watcher that warns when the controller's memory nears it
// (docs/operations.md). Without a limit it does nothing; an unreadable one
// is logged, never fatal.
func watchMemory(mgr ctrl.Manager) error {
	log := ctrl.Log.WithName("memory")
	limit, err := memlimit.Limit("/sys/fs/cgroup")
	if err != nil {
		log.Error(err, "no memory warning")
		return nil
	}
	if limit == 0 {
		return nil
	}
	soft := memlimit.SetSoftLimit(limit)
	log.Info("container memory limit", "limitMiB", limit>>20, "goSoftLimitMiB", soft>>20)
	return mgr.Add(&memlimit.Watcher{Limit: limit, Log: log})
}

// cacheSync runs on every replica (leader or not) and reports ready once the
// informer caches have synced.
type cacheSync struct {
	cache  cache.Cache
	synced atomic.Bool
}

func (c *cacheSync) Start(ctx context.Context) error {
	c.synced.Store(c.cache.WaitForCacheSync(ctx))
	<-ctx.Done()
	return nil
}

func (c *cacheSync) NeedLeaderElection() bool { return false }

func (c *cacheSync) check(*http.Request) error {
	if !c.synced.Load() {
		return errors.New("informer caches not synced")
	}
	return nil
}

func logEncoder(format string) zap.Opts {
	if format == "json" {
		return zap.JSONEncoder()
	}
	return zap.ConsoleEncoder()
}

func logLevel(l string) zapcore.Level {
	switch l {
	case "debug":
		return zapcore.DebugLevel
	case "error":
		return zapcore.ErrorLevel
	}
	return zapcore.InfoLevel
}
