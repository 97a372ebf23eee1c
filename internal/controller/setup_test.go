package controller

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// TestBuildsEveryRegisteredExtension: the controller builds a router for
// every registered router definition and a provider for every supported
// provider, so what lint, plan and the controller refuse by (the
// registries) is what the controller runs.
func TestBuildsEveryRegisteredExtension(t *testing.T) {
	routers, err := Routers(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := routers.Names(), traffic.Names(); len(got) == 0 || !slices.Equal(got, want) {
		t.Errorf("built routers %v, registered definitions %v", got, want)
	}
	providers, err := provider.Build(loggedCluster{Cluster: stubCluster{}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := providers.Names(), provider.Supported(); len(got) == 0 || !slices.Equal(got, want) {
		t.Errorf("built providers %v, provider.Supported %v", got, want)
	}
	if provider.Unsupported("web") != "" || provider.Unsupported("plugin/example.com/not-installed") == "" {
		t.Fatalf("Unsupported: web %q, plugin %q", provider.Unsupported("web"), provider.Unsupported("plugin/example.com/not-installed"))
	}
}

// TestProvidersGetTheHTTPPolicy: the policy Options carries (from the
// controller's flags) is the one the built web and prometheus providers
// enforce: with an allow-list, a loopback endpoint is refused.
func TestProvidersGetTheHTTPPolicy(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("1")) }))
	defer srv.Close()
	for _, tc := range []struct {
		policy  provider.HTTPPolicy
		refused bool
	}{{provider.HTTPPolicy{}, false}, {provider.HTTPPolicy{HostAllowlist: []string{"*.example.com"}}, true}} {
		providers, err := provider.Build(loggedCluster{Cluster: stubCluster{}, policy: tc.policy})
		if err != nil {
			t.Fatal(err)
		}
		for name, m := range map[string]rampv1.MetricProvider{
			"web":        {Web: &rampv1.WebMetric{URL: srv.URL}},
			"prometheus": {Prometheus: &rampv1.PrometheusMetric{Address: srv.URL, Query: "up"}},
		} {
			p, err := providers.Get(name)
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Measure(context.Background(), provider.Request{Metric: rampv1.Metric{Name: "m", Provider: m}})
			if refused := err != nil && strings.Contains(err.Error(), `host "127.0.0.1" is not in --provider-host-allowlist`); refused != tc.refused {
				t.Errorf("%s with %+v: error %v, want refused %v", name, tc.policy, err, tc.refused)
			}
		}
	}
}

// stubCluster is what the providers are built with: a manager's cluster,
// here without a client.
type stubCluster struct{ cluster.Cluster }

func (stubCluster) GetClient() client.Client    { return nil }
func (stubCluster) GetAPIReader() client.Reader { return nil }
