package job

import (
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// ProviderName is the provider's registry name: its metric.provider field.
const ProviderName = "job"

// The provider's RBAC (Jobs: get, create, delete) is granted next to the
// AnalysisRun controller's watch of the Jobs runs own
// (internal/controller/analysisrun/setup.go).

// init registers the provider, built on the manager's cached client and its
// live API reader.
func init() {
	provider.Register(ProviderName, func(cl cluster.Cluster) *Provider { return New(cl.GetClient(), cl.GetAPIReader()) })
}
