package cloudwatch

import "github.com/ramp-rollouts/ramp/internal/analysis/provider"

// ProviderName is the provider's registry name: its metric.provider field.
const ProviderName = "cloudWatch"

// init registers the provider; it needs nothing from the controller (its
// configuration is the process's AWS configuration).
func init() {
	provider.Register(ProviderName, func(any) *Provider { return New() })
}
