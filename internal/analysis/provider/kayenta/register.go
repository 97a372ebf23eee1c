package kayenta

import "github.com/ramp-rollouts/ramp/internal/analysis/provider"

// ProviderName is the provider's registry name: its metric.provider field.
const ProviderName = "kayenta"

// init registers the provider; it needs the controller's HTTP policy.
func init() {
	provider.Register(ProviderName, func(d provider.HTTPDeps) *Provider { return New(d, nil) })
}
