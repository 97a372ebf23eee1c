package judge

import (
	"time"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/prometheus"
)

// ProviderName is the provider's registry name: its metric.provider field.
const ProviderName = "judge"

// init registers the provider; its queries follow the controller's HTTP
// policy as the prometheus provider's do (nil deps: the zero policy).
func init() {
	provider.Register(ProviderName, func(d provider.HTTPDeps) *Provider {
		if d == nil {
			return New(prometheus.New(), time.Now)
		}
		return New(prometheus.New(prometheus.WithPolicy(d.HTTPPolicy())), time.Now)
	})
}
