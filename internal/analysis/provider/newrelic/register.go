package newrelic

import "github.com/ramp-rollouts/ramp/internal/analysis/provider"

// ProviderName is the provider's registry name: its metric.provider field.
const ProviderName = "newRelic"

// init registers the provider; it reads its credential Secret (the
// metric's profile) through the controller's deps.
func init() {
	provider.Register(ProviderName, func(d provider.CredentialDeps) *Provider { return New(d, nil) })
}
