package controller

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	_ "github.com/ramp-rollouts/ramp/internal/builtin" // the routers and providers this build ships
	"github.com/ramp-rollouts/ramp/internal/controller/analysisrun"
	"github.com/ramp-rollouts/ramp/internal/controller/eventgate"
	"github.com/ramp-rollouts/ramp/internal/controller/experiment"
	"github.com/ramp-rollouts/ramp/internal/controller/rollout"
	"github.com/ramp-rollouts/ramp/internal/controller/writelog"
	"github.com/ramp-rollouts/ramp/internal/metrics"
	"github.com/ramp-rollouts/ramp/internal/registry"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// Options configure the controllers.
type Options struct {
	// MaxConcurrentReconciles per controller; 0 means the default (10).
	MaxConcurrentReconciles int
	// HTTPProviders is where the web and prometheus providers may send
	// requests (--allow-link-local-providers, --provider-host-allowlist).
	HTTPProviders provider.HTTPPolicy
	// CredentialNamespace is where provider credential Secrets (datadog,
	// newrelic, influxdb, wavefront) are read by default: the controller's
	// own namespace ($POD_NAMESPACE, else provider.DefaultCredentialNamespace).
	CredentialNamespace string

	// Bounds on the AnalysisRun controller's work (issue 24 §2); zero
	// values mean the defaults.
	// MaxConcurrentMeasurementsPerProvider: measurements of one provider
	// running at once (20).
	MaxConcurrentMeasurementsPerProvider int
	// MaxProviderTimeout: deadline of every measurement, whatever the
	// metric's own timeout (60 s).
	MaxProviderTimeout time.Duration
	// ConditionEvaluationBudget: time one successCondition or
	// failureCondition evaluation may take (1 s).
	ConditionEvaluationBudget time.Duration
	// SecretLabelSelector, when set, restricts the Secrets secretKeyRef
	// arguments may read to those it matches.
	SecretLabelSelector labels.Selector
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
		Routers: routers, Live: mgr.GetAPIReader()}
	if err := r.SetupWithManager(mgr, o.MaxConcurrentReconciles); err != nil {
		return err
	}
	providers, err := Providers(mgr, o.HTTPProviders, o.CredentialNamespace)
	if err != nil {
		return err
	}
	ex := &experiment.Reconciler{Client: c, Recorder: Recorder(mgr, "experiments-controller"), Clock: clock.RealClock{},
		Live: mgr.GetAPIReader()}
	if err := ex.SetupWithManager(mgr, o.MaxConcurrentReconciles); err != nil {
		return err
	}
	ar := &analysisrun.Reconciler{Client: c, Secrets: mgr.GetAPIReader(), Providers: providers,
		Clock: clock.RealClock{}, Evaluator: analysis.NewBudgetedEvaluator(o.ConditionEvaluationBudget),
		MaxConcurrentPerProvider: o.MaxConcurrentMeasurementsPerProvider, MaxProviderTimeout: o.MaxProviderTimeout,
		SecretSelector: o.SecretLabelSelector}
	return ar.SetupWithManager(mgr, o.MaxConcurrentReconciles)
}

// Recorder is the manager's Event recorder for source component name, each
// Event logged at V(1) (writelog), behind the manager's one event gate
// (eventgate): Events beyond the Events client's rate are dropped and
// counted rather than each held in a goroutine until the client may send it.
func Recorder(mgr ctrl.Manager, name string) events.EventRecorder {
	l := mgr.GetLogger().WithName("events")
	return gateOf(mgr).Recorder(writelog.Recorder(mgr.GetEventRecorder(name), l), l)
}

// gates holds the event gate of each manager: all its recorders share one
// Events client, and so one rate.
var gates sync.Map // ctrl.Manager -> *eventgate.Gate

func gateOf(mgr ctrl.Manager) *eventgate.Gate {
	if g, ok := gates.Load(mgr); ok {
		return g.(*eventgate.Gate)
	}
	// controller-runtime builds the Events client from the manager's
	// config: its QPS is the rate the client sends Events at.
	g, _ := gates.LoadOrStore(mgr, eventgate.New(float64(mgr.GetConfig().QPS), clock.RealClock{}))
	return g.(*eventgate.Gate)
}

// Routers builds the traffic routers of this build (each router package
// registers itself; internal/builtin links them) on c, keyed by the
// trafficRouting field each is configured under.
func Routers(c client.Client) (*registry.Registry[traffic.Router], error) {
	return traffic.Build(c)
}

// Providers builds the metric providers of this build (each provider
// package registers itself; internal/builtin links them) on the manager's
// client and API reader, the HTTP ones with policy. Their names are
// provider.Supported.
func Providers(mgr ctrl.Manager, policy provider.HTTPPolicy, credentialNamespace string) (*registry.Registry[provider.Provider], error) {
	if credentialNamespace == "" {
		credentialNamespace = provider.DefaultCredentialNamespace
	}
	return provider.Build(loggedCluster{Cluster: mgr, client: writelog.Client(mgr.GetClient()), policy: policy, credNS: credentialNamespace})
}

// loggedCluster is the manager with its client replaced by one that logs
// every write at V(1), for the providers that write (job), the HTTP
// providers' policy (provider.HTTPDeps) and the credential Secrets
// (provider.CredentialDeps).
type loggedCluster struct {
	cluster.Cluster
	client client.Client
	policy provider.HTTPPolicy
	credNS string
}

func (l loggedCluster) GetClient() client.Client { return l.client }

func (l loggedCluster) HTTPPolicy() provider.HTTPPolicy { return l.policy }

func (l loggedCluster) CredentialNamespace() string { return l.credNS }

// Secret reads a credential Secret live through the API reader: Ramp
// caches no Secrets, and reads one only when a measurement needs it.
func (l loggedCluster) Secret(ctx context.Context, namespace, name string) (map[string][]byte, error) {
	var s corev1.Secret
	if err := l.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &s); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("secret %s/%s not found", namespace, name)
		}
		return nil, fmt.Errorf("secret %s/%s: %s", namespace, name, apierrors.ReasonForError(err))
	}
	return s.Data, nil
}

var _ provider.CredentialDeps = loggedCluster{}
