package web

import "github.com/ramp-rollouts/ramp/internal/analysis/provider"

// ProviderName is the provider's registry name: its metric.provider field.
const ProviderName = "web"

// init registers the provider; it needs nothing from the controller.
func init() { provider.Register(ProviderName, func(any) *Provider { return New() }) }
