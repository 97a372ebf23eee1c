package lint

import (
	"testing"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	_ "github.com/ramp-rollouts/ramp/internal/builtin" // the routers and providers this build ships
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// TestBuiltinLinked: this package's tests see the routers and providers the
// controller ships (their registries are filled by the packages' init), so
// "supported: ..." messages name them.
func TestBuiltinLinked(t *testing.T) {
	if len(traffic.Names()) == 0 || len(provider.Supported()) == 0 {
		t.Fatalf("registries empty: routers %v, providers %v", traffic.Names(), provider.Supported())
	}
}
