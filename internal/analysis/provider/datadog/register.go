package datadog

import "github.com/ramp-rollouts/ramp/internal/analysis/provider"

// ProviderName is the provider's registry name: its metric.provider field.
const ProviderName = "datadog"

// init registers the provider; it reads its credential Secret through the
// controller's deps (nil deps: every measurement is an Error naming the
// Secret it could not read).
func init() {
	provider.Register(ProviderName, func(d provider.CredentialDeps) *Provider { return New(d) })
}
