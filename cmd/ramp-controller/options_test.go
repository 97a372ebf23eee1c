package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func TestParseOptions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		env     string
		check   func(options) string
		wantErr string
	}{
		{name: "defaults", check: func(o options) string {
			if !o.leaderElect || o.leaderElectionNamespace != "kube-system" || o.logFormat != "text" || o.namespace != "" {
				return "unexpected defaults"
			}
			return ""
		}},
		{name: "client rate and pprof defaults", check: func(o options) string {
			if o.qps != 100 || o.burst != 200 || o.pprofAddr != "0" {
				return fmt.Sprintf("qps %v, burst %d, pprof %q: want 100, 200 and off", o.qps, o.burst, o.pprofAddr)
			}
			return ""
		}},
		{name: "lease follows --namespace", args: []string{"--namespace", "team-a"}, check: func(o options) string {
			if o.leaderElectionNamespace != "team-a" {
				return "lease namespace " + o.leaderElectionNamespace
			}
			return ""
		}},
		{name: "lease follows POD_NAMESPACE", env: "argo-rollouts", check: func(o options) string {
			if o.leaderElectionNamespace != "argo-rollouts" {
				return "lease namespace " + o.leaderElectionNamespace
			}
			return ""
		}},
		{name: "HTTP provider policy defaults", check: func(o options) string {
			if p := o.httpPolicy(); p.AllowLinkLocal || p.HostAllowlist != nil {
				return "link-local allowed or an allow-list by default"
			}
			return ""
		}},
		{name: "HTTP provider policy", args: []string{"--allow-link-local-providers", "--provider-host-allowlist", " Prom.example.com, *.svc.cluster.local ,10.0.0.1"},
			check: func(o options) string {
				p := o.httpPolicy()
				if !p.AllowLinkLocal || !slices.Equal(p.HostAllowlist, []string{"prom.example.com", "*.svc.cluster.local", "10.0.0.1"}) {
					return "policy " + strings.Join(p.HostAllowlist, ",")
				}
				return ""
			}},
		{name: "allow-list with a port", args: []string{"--provider-host-allowlist", "prom:9090"},
			wantErr: `--provider-host-allowlist: "prom:9090" is not a host, an IP or a *.suffix pattern`},
		{name: "allow-list with a scheme", args: []string{"--provider-host-allowlist", "https://prom"},
			wantErr: `--provider-host-allowlist: "https://prom" is not a host`},
		{name: "allow-list with an empty entry", args: []string{"--provider-host-allowlist", "a,,b"},
			wantErr: `--provider-host-allowlist: empty entry in "a,,b"`},
		// Metric plugins: upstream's ConfigMap and plugin-bin by default.
		{name: "metric plugin defaults", check: func(o options) string {
			if o.pluginsConfigMap != "argo-rollouts-config" || o.pluginDir != "plugin-bin" {
				return fmt.Sprintf("configmap %q, dir %q", o.pluginsConfigMap, o.pluginDir)
			}
			return ""
		}},
		{name: "metric plugins off", args: []string{"--metric-plugins-configmap", "", "--plugin-dir", ""}, check: func(o options) string {
			if o.pluginsConfigMap != "" {
				return "configmap " + o.pluginsConfigMap
			}
			return ""
		}},
		{name: "metric plugin configmap name", args: []string{"--metric-plugins-configmap", "Bad_Name"},
			wantErr: `--metric-plugins-configmap "Bad_Name" is not a ConfigMap name`},
		{name: "metric plugin dir", args: []string{"--plugin-dir", ""},
			wantErr: `--plugin-dir must name a directory when --metric-plugins-configmap is set`},
		// In a cluster the Lease stays in the controller's own namespace
		// (where the shipped Role grants Leases) when --namespace narrows
		// what it watches.
		{name: "lease in POD_NAMESPACE with --namespace", args: []string{"--namespace", "team-a"}, env: "ramp-system", check: func(o options) string {
			if o.leaderElectionNamespace != "ramp-system" || o.namespace != "team-a" {
				return "lease namespace " + o.leaderElectionNamespace + ", watched " + o.namespace
			}
			return ""
		}},
		{name: "bad log format", args: []string{"--log-format", "xml"}, wantErr: `--log-format must be text or json, not "xml"`},
		{name: "metrics certificate without --metrics-secure", args: []string{"--metrics-cert-dir", "/certs"}, wantErr: "--metrics-cert-dir needs --metrics-secure"},
		{name: "bad log level", args: []string{"--log-level", "trace"}, wantErr: `--log-level must be debug, info or error`},
		{name: "analysis bounds default", check: func(o options) string {
			if o.maxMeasurementsPerProvider != 20 || o.maxProviderTimeout != time.Minute || o.conditionBudget != time.Second || o.secretSelector != nil {
				return fmt.Sprintf("bounds %d %s %s %v", o.maxMeasurementsPerProvider, o.maxProviderTimeout, o.conditionBudget, o.secretSelector)
			}
			return ""
		}},
		{name: "analysis bounds set", args: []string{"--max-concurrent-measurements-per-provider=3", "--max-provider-timeout=5s",
			"--condition-evaluation-budget=200ms", "--secret-label-selector=ramp.io/analysis=true"}, check: func(o options) string {
			if o.maxMeasurementsPerProvider != 3 || o.maxProviderTimeout != 5*time.Second || o.conditionBudget != 200*time.Millisecond ||
				o.secretSelector == nil || !o.secretSelector.Matches(labels.Set{"ramp.io/analysis": "true"}) || o.secretSelector.Matches(labels.Set{}) {
				return fmt.Sprintf("bounds %d %s %s %v", o.maxMeasurementsPerProvider, o.maxProviderTimeout, o.conditionBudget, o.secretSelector)
			}
			return ""
		}},
		{name: "no measurement slot", args: []string{"--max-concurrent-measurements-per-provider=0"}, wantErr: `--max-concurrent-measurements-per-provider must be at least 1, not 0`},
		{name: "zero provider timeout", args: []string{"--max-provider-timeout=0s"}, wantErr: `--max-provider-timeout must be positive, not 0s`},
		{name: "negative budget", args: []string{"--condition-evaluation-budget=-1s"}, wantErr: `--condition-evaluation-budget must be positive, not -1s`},
		{name: "bad secret selector", args: []string{"--secret-label-selector=a in (b"}, wantErr: `--secret-label-selector "a in (b":`},
		// Leader election (issue 20 §4): client-go's rules for the timings,
		// a Lease per instance id.
		{name: "leader election defaults", check: func(o options) string {
			if o.leaseDuration != 15*time.Second || o.renewDeadline != 10*time.Second || o.retryPeriod != 2*time.Second || o.leaseName() != "ramp-controller" {
				return fmt.Sprintf("lease %s renew %s retry %s name %s", o.leaseDuration, o.renewDeadline, o.retryPeriod, o.leaseName())
			}
			return ""
		}},
		{name: "fast failover timings", args: []string{"--leader-election-lease-duration=4s", "--leader-election-renew-deadline=3s", "--leader-election-retry-period=500ms"},
			check: func(o options) string {
				if o.leaseDuration != 4*time.Second || o.renewDeadline != 3*time.Second || o.retryPeriod != 500*time.Millisecond {
					return fmt.Sprintf("lease %s renew %s retry %s", o.leaseDuration, o.renewDeadline, o.retryPeriod)
				}
				return ""
			}},
		{name: "Lease per instance id", args: []string{"--instance-id", "shard-a"}, check: func(o options) string {
			if o.leaseName() != "ramp-controller-shard-a" {
				return "lease name " + o.leaseName()
			}
			return ""
		}},
		{name: "lease not longer than renew deadline", args: []string{"--leader-election-lease-duration=10s"},
			wantErr: "--leader-election-lease-duration (10s) must be greater than --leader-election-renew-deadline (10s)"},
		{name: "renew deadline within jittered retry period", args: []string{"--leader-election-renew-deadline=3s", "--leader-election-retry-period=2500ms"},
			wantErr: "--leader-election-renew-deadline (3s) must be greater than 1.2 x --leader-election-retry-period (2.5s)"},
		{name: "zero lease duration", args: []string{"--leader-election-lease-duration=0s"}, wantErr: "--leader-election-lease-duration must be positive, not 0s"},
		{name: "negative renew deadline", args: []string{"--leader-election-renew-deadline=-1s"}, wantErr: "--leader-election-renew-deadline must be positive, not -1s"},
		{name: "zero retry period", args: []string{"--leader-election-retry-period=0s"}, wantErr: "--leader-election-retry-period must be positive, not 0s"},
		{name: "instance id not a label value", args: []string{"--instance-id", "a b"}, wantErr: `--instance-id "a b" is not a valid label value`},
		{name: "instance id cannot name a Lease", args: []string{"--instance-id", "Shard_A"},
			wantErr: `--instance-id "Shard_A" cannot name the leader-election Lease "ramp-controller-Shard_A"`},
		{name: "any label value without leader election", args: []string{"--instance-id", "Shard_A", "--leader-elect=false"}, check: func(o options) string {
			if o.instanceID != "Shard_A" {
				return "instance id " + o.instanceID
			}
			return ""
		}},
		{name: "version", args: []string{"--version"}, check: func(o options) string {
			if !o.printVersion {
				return "--version not set"
			}
			return ""
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("POD_NAMESPACE", tc.env)
			o, err := parseOptions(flag.NewFlagSet("test", flag.ContinueOnError), tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if msg := tc.check(o); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// TestCacheOptionsShardByInstanceID: with --instance-id only labelled objects
// are watched; without it only unlabelled ones; --namespace limits the cache.
func TestCacheOptionsShardByInstanceID(t *testing.T) {
	labelled := labels.Set{rampv1.ControllerInstanceIDLabel: "shard-a"}
	other := labels.Set{rampv1.ControllerInstanceIDLabel: "shard-b"}
	plain := labels.Set{"app": "web"}
	for _, tc := range []struct {
		id                                 string
		wantLabelled, wantOther, wantPlain bool
	}{
		{id: "", wantLabelled: false, wantOther: false, wantPlain: true},
		{id: "shard-a", wantLabelled: true, wantOther: false, wantPlain: false},
	} {
		opts := cacheOptions(options{instanceID: tc.id, namespace: "team-a"})
		if _, ok := opts.DefaultNamespaces["team-a"]; !ok || len(opts.DefaultNamespaces) != 1 {
			t.Errorf("id %q: cache namespaces = %v, want only team-a", tc.id, opts.DefaultNamespaces)
		}
		var by cache.ByObject
		for obj, b := range opts.ByObject { // keyed by pointer: find the Rollout entry
			if _, isRollout := obj.(*rampv1.Rollout); isRollout {
				by = b
			}
		}
		if by.Label == nil {
			t.Fatalf("id %q: no label selector for Rollouts", tc.id)
		}
		if got := by.Label.Matches(labelled); got != tc.wantLabelled {
			t.Errorf("id %q: labelled shard-a matches = %v", tc.id, got)
		}
		if got := by.Label.Matches(other); got != tc.wantOther {
			t.Errorf("id %q: labelled shard-b matches = %v", tc.id, got)
		}
		if got := by.Label.Matches(plain); got != tc.wantPlain {
			t.Errorf("id %q: unlabelled matches = %v", tc.id, got)
		}
	}
	if opts := cacheOptions(options{}); opts.DefaultNamespaces != nil {
		t.Errorf("without --namespace the cache is limited to %v", opts.DefaultNamespaces)
	}
}

// TestLeaderElectionOptions: the leader-election flags reach the manager's
// options, with the per-instance Lease.
func TestLeaderElectionOptions(t *testing.T) {
	o, err := parseOptions(flag.NewFlagSet("test", flag.ContinueOnError), []string{"--instance-id=shard-a", "--leader-election-namespace=ops",
		"--leader-election-lease-duration=4s", "--leader-election-renew-deadline=3s", "--leader-election-retry-period=500ms"})
	if err != nil {
		t.Fatal(err)
	}
	m := leaderElectionOptions(o)
	if !m.LeaderElection || m.LeaderElectionID != "ramp-controller-shard-a" || m.LeaderElectionNamespace != "ops" || !m.LeaderElectionReleaseOnCancel {
		t.Errorf("election %v id %q namespace %q release %v", m.LeaderElection, m.LeaderElectionID, m.LeaderElectionNamespace, m.LeaderElectionReleaseOnCancel)
	}
	if *m.LeaseDuration != 4*time.Second || *m.RenewDeadline != 3*time.Second || *m.RetryPeriod != 500*time.Millisecond {
		t.Errorf("lease %s renew %s retry %s", *m.LeaseDuration, *m.RenewDeadline, *m.RetryPeriod)
	}
}
