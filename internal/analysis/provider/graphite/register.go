package graphite

import (
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// ProviderName is the provider's registry name: its metric.provider field.
const ProviderName = "graphite"

// init registers the provider; it needs the controller's HTTP policy (nil
// deps: the zero policy).
func init() {
	provider.Register(ProviderName, func(d provider.HTTPDeps) *Provider {
		return New(httpfetch.ForDeps(nil, d))
	})
}
