package controller

import (
	"slices"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

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
	providers, err := provider.Build(stubCluster{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := providers.Names(), provider.Supported(); len(got) == 0 || !slices.Equal(got, want) {
		t.Errorf("built providers %v, provider.Supported %v", got, want)
	}
	if provider.Unsupported("web") != "" || provider.Unsupported("datadog") == "" {
		t.Fatalf("Unsupported: web %q, datadog %q", provider.Unsupported("web"), provider.Unsupported("datadog"))
	}
}

// stubCluster is what the providers are built with: a manager's cluster,
// here without a client.
type stubCluster struct{ cluster.Cluster }

func (stubCluster) GetClient() client.Client    { return nil }
func (stubCluster) GetAPIReader() client.Reader { return nil }
