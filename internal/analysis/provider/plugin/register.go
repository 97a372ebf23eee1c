package plugin

import (
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// ProviderPrefix starts the registry name of every plugin provider: the
// name provider.Name gives metric.provider.plugin.<name>.
const ProviderPrefix = "plugin/"

// Register makes the plugin name, installed at path, a provider under
// "plugin/<name>". The controller calls it once per configured plugin
// before it builds the providers; the returned Provider is the one built.
func Register(name, path string, args []string) *Provider {
	p := New(name, path, args)
	provider.Register(ProviderPrefix+name, func(any) *Provider { return p })
	return p
}
