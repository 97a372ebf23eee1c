package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/plugin"
	"github.com/ramp-rollouts/ramp/internal/controller/analysisrun"
)

// options are the controller's command-line flags.
type options struct {
	namespace               string
	instanceID              string
	leaderElect             bool
	leaderElectionNamespace string
	leaseDuration           time.Duration
	renewDeadline           time.Duration // leader-election timings (issue 20 §4)
	retryPeriod             time.Duration
	metricsAddr             string
	probeAddr               string
	pprofAddr               string
	logFormat               string
	logLevel                string
	qps                     float64
	burst                   int
	// HTTP metric providers (web, prometheus): where their requests may go.
	allowLinkLocalProviders bool
	providerHostAllowlist   []string

	// Bounds on analysis work (issue 24 §2).
	maxMeasurementsPerProvider int
	maxProviderTimeout         time.Duration
	conditionBudget            time.Duration
	secretLabelSelector        string
	secretSelector             labels.Selector // parsed secretLabelSelector; nil when unset

	// Authenticated metrics (issue 24 §3).
	metricsSecure  bool
	metricsCertDir string

	// Install (issue 20 §5).
	printVersion bool

	// Metric provider plugins (issue 21): upstream's ConfigMap and where
	// the binaries are installed.
	pluginsConfigMap string
	pluginDir        string
}

func parseOptions(fs *flag.FlagSet, args []string) (options, error) {
	var o options
	fs.StringVar(&o.namespace, "namespace", "", "watch only this namespace (default: all namespaces)")
	fs.StringVar(&o.instanceID, "instance-id", "", "handle only objects labelled "+rampv1.ControllerInstanceIDLabel+"=<id>; without it, only objects without that label")
	fs.BoolVar(&o.leaderElect, "leader-elect", true, "elect a leader (Lease \"ramp-controller\", or \"ramp-controller-<instance-id>\" with --instance-id) so that only one replica reconciles")
	fs.StringVar(&o.leaderElectionNamespace, "leader-election-namespace", "", "namespace of the leader-election Lease (default: $POD_NAMESPACE, the controller's own namespace, else --namespace, else kube-system)")
	fs.DurationVar(&o.leaseDuration, "leader-election-lease-duration", 15*time.Second, "how long a standby waits, after the leader's last renewal, before it takes the Lease")
	fs.DurationVar(&o.renewDeadline, "leader-election-renew-deadline", 10*time.Second, "how long the leader tries to renew its Lease before it gives up leading (and exits); less than the lease duration")
	fs.DurationVar(&o.retryPeriod, "leader-election-retry-period", 2*time.Second, "interval between a replica's attempts to take or renew the Lease; the renew deadline must exceed 1.2 times it")
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", ":8090", "address of the Prometheus /metrics endpoint (\"0\" disables it)")
	fs.StringVar(&o.probeAddr, "health-probe-bind-address", ":8080", "address of the /healthz and /readyz endpoints")
	fs.StringVar(&o.pprofAddr, "pprof-bind-address", "0", "address of Go's /debug/pprof endpoints, for diagnosing memory and CPU (\"0\": off; unauthenticated: bind it to loopback)")
	fs.StringVar(&o.logFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info or error")
	fs.Float64Var(&o.qps, "kube-api-qps", 100, "queries per second to the API server, for each kind the controller writes (each has its own limiter)")
	fs.IntVar(&o.burst, "kube-api-burst", 200, "burst of queries to the API server, for each kind")
	fs.BoolVar(&o.allowLinkLocalProviders, provider.AllowLinkLocalFlag, false,
		"let web and prometheus metrics reach link-local and cloud-metadata addresses (169.254.0.0/16, fe80::/10, fd00:ec2::254, metadata.google.internal)")
	allowlist := fs.String(provider.HostAllowlistFlag, "",
		"comma-separated hosts (or *.suffix patterns) web and prometheus metrics may send requests and follow redirects to (default: any host)")
	fs.IntVar(&o.maxMeasurementsPerProvider, "max-concurrent-measurements-per-provider", analysisrun.DefaultMaxConcurrentPerProvider, "measurements of one metric provider running at once; the others wait for a slot")
	fs.DurationVar(&o.maxProviderTimeout, "max-provider-timeout", analysisrun.DefaultMaxProviderTimeout, "deadline of every measurement, whatever the metric's own timeout says (the smaller wins)")
	fs.DurationVar(&o.conditionBudget, "condition-evaluation-budget", analysis.DefaultConditionBudget, "time one successCondition/failureCondition evaluation may take; an overrun is an Error measurement")
	fs.StringVar(&o.secretLabelSelector, "secret-label-selector", "", "when set, secretKeyRef arguments may read only Secrets whose labels match this selector")
	fs.BoolVar(&o.metricsSecure, "metrics-secure", false, "serve /metrics over HTTPS, each scrape authenticated by the API server (TokenReview) and authorized for get on /metrics (SubjectAccessReview); needs the RBAC of config/secure-metrics")
	fs.StringVar(&o.metricsCertDir, "metrics-cert-dir", "", "directory holding tls.crt and tls.key for --metrics-secure (default: a self-signed certificate made at start)")
	fs.BoolVar(&o.printVersion, "version", false, "print the version, commit and Go version, then exit")
	fs.StringVar(&o.pluginsConfigMap, "metric-plugins-configmap", plugin.DefaultConfigMap,
		"ConfigMap, in the controller's namespace ($POD_NAMESPACE, else argo-rollouts), whose metricProviderPlugins key configures metric plugins, read at start (\"\": none)")
	fs.StringVar(&o.pluginDir, "plugin-dir", plugin.DefaultDir, "directory metric plugin binaries are installed into at start (relative to the working directory)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if err := o.checkAnalysisBounds(); err != nil {
		return o, err
	}
	if err := o.checkLeaderElection(); err != nil {
		return o, err
	}
	var err error
	if o.providerHostAllowlist, err = provider.ParseHostAllowlist(*allowlist); err != nil {
		return o, err
	}
	if err := o.checkPlugins(); err != nil {
		return o, err
	}
	if o.metricsCertDir != "" && !o.metricsSecure {
		return o, fmt.Errorf("--metrics-cert-dir needs --metrics-secure (plain HTTP uses no certificate)")
	}
	if o.logFormat != "text" && o.logFormat != "json" {
		return o, fmt.Errorf("--log-format must be text or json, not %q", o.logFormat)
	}
	switch o.logLevel {
	case "debug", "info", "error":
	default:
		return o, fmt.Errorf("--log-level must be debug, info or error, not %q", o.logLevel)
	}
	if o.leaderElectionNamespace == "" {
		// The Lease lives where the controller runs (the shipped Role
		// grants Leases in its own namespace only), whatever it watches.
		o.leaderElectionNamespace = firstNonEmpty(os.Getenv("POD_NAMESPACE"), o.namespace, "kube-system")
	}
	return o, nil
}

// checkPlugins validates the metric plugin flags.
func (o *options) checkPlugins() error {
	if o.pluginsConfigMap == "" {
		return nil
	}
	if errs := validation.IsDNS1123Subdomain(o.pluginsConfigMap); len(errs) > 0 {
		return fmt.Errorf("--metric-plugins-configmap %q is not a ConfigMap name: %s", o.pluginsConfigMap, strings.Join(errs, "; "))
	}
	if o.pluginDir == "" {
		return fmt.Errorf("--plugin-dir must name a directory when --metric-plugins-configmap is set")
	}
	return nil
}

// httpPolicy is the HTTP providers' policy the flags describe.
func (o options) httpPolicy() provider.HTTPPolicy {
	return provider.HTTPPolicy{AllowLinkLocal: o.allowLinkLocalProviders, HostAllowlist: o.providerHostAllowlist}
}

// checkAnalysisBounds validates the bounds on analysis work and parses
// --secret-label-selector.
func (o *options) checkAnalysisBounds() error {
	if o.maxMeasurementsPerProvider < 1 {
		return fmt.Errorf("--max-concurrent-measurements-per-provider must be at least 1, not %d", o.maxMeasurementsPerProvider)
	}
	if o.maxProviderTimeout <= 0 {
		return fmt.Errorf("--max-provider-timeout must be positive, not %s", o.maxProviderTimeout)
	}
	if o.conditionBudget <= 0 {
		return fmt.Errorf("--condition-evaluation-budget must be positive, not %s", o.conditionBudget)
	}
	if o.secretLabelSelector != "" {
		sel, err := labels.Parse(o.secretLabelSelector)
		if err != nil {
			return fmt.Errorf("--secret-label-selector %q: %w", o.secretLabelSelector, err)
		}
		o.secretSelector = sel
	}
	return nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
