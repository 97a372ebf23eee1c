package influxdb

import (
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// ProviderName is the provider's registry name: its metric.provider field.
const ProviderName = "influxdb"

// init registers the provider: it reads profile Secrets and sends with the
// controller's HTTP policy (nil deps: no Secrets, the zero policy).
func init() {
	provider.Register(ProviderName, func(d provider.CredentialDeps) *Provider {
		return New(d, httpfetch.ForDeps(nil, d))
	})
}
