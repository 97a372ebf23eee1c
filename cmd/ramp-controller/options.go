package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// options are the controller's command-line flags.
type options struct {
	namespace               string
	instanceID              string
	leaderElect             bool
	leaderElectionNamespace string
	leaseDuration           time.Duration
	metricsAddr             string
	probeAddr               string
	logFormat               string
	logLevel                string
	qps                     float64
	burst                   int
}

func parseOptions(fs *flag.FlagSet, args []string) (options, error) {
	var o options
	fs.StringVar(&o.namespace, "namespace", "", "watch only this namespace (default: all namespaces)")
	fs.StringVar(&o.instanceID, "instance-id", "", "handle only objects labelled "+rampv1.ControllerInstanceIDLabel+"=<id>; without it, only objects without that label")
	fs.BoolVar(&o.leaderElect, "leader-elect", true, "elect a leader (Lease \"ramp-controller\") so that only one replica reconciles")
	fs.StringVar(&o.leaderElectionNamespace, "leader-election-namespace", "", "namespace of the leader-election Lease (default: $POD_NAMESPACE, the controller's own namespace, else --namespace, else kube-system)")
	fs.DurationVar(&o.leaseDuration, "leader-election-lease-duration", 15*time.Second, "leader-election lease duration")
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", ":8090", "address of the Prometheus /metrics endpoint (\"0\" disables it)")
	fs.StringVar(&o.probeAddr, "health-probe-bind-address", ":8080", "address of the /healthz and /readyz endpoints")
	fs.StringVar(&o.logFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info or error")
	fs.Float64Var(&o.qps, "kube-api-qps", 40, "queries per second to the API server")
	fs.IntVar(&o.burst, "kube-api-burst", 80, "burst of queries to the API server")
	if err := fs.Parse(args); err != nil {
		return o, err
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

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
