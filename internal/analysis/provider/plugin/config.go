package plugin

import (
	"fmt"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// Upstream's configuration: the metricProviderPlugins key of the
// argo-rollouts-config ConfigMap in the controller's namespace.
const (
	DefaultConfigMap = "argo-rollouts-config"
	ConfigKey        = "metricProviderPlugins"
	// DefaultDir is where plugins are installed, relative to the
	// controller's working directory (upstream's plugin-bin).
	DefaultDir = "plugin-bin"
)

// Item is one configured metric plugin, as upstream spells it.
type Item struct {
	// Name is "<namespace>/<name>", the key of metric.provider.plugin.
	Name string `json:"name"`
	// Location is file://<path> or an http(s) URL.
	Location string `json:"location"`
	// Sha256 is the hex SHA-256 of the binary; checked when set.
	Sha256 string `json:"sha256,omitempty"`
	// Args are the binary's command-line arguments.
	Args []string `json:"args,omitempty"`
	// HeadersFrom names Secrets whose data upstream sends as headers of an
	// http(s) download; Ramp refuses it (see ParseConfig).
	HeadersFrom []struct {
		SecretRef struct {
			Name string `json:"name"`
		} `json:"secretRef"`
	} `json:"headersFrom,omitempty"`
}

// nameRE is upstream's rule for a plugin name, <namespace>/<name>, except
// that the name may not start with a dot: "ns/.." and "ns/." would install
// over the plugin directory itself, and ".install-*" are Install's
// temporary files.
var nameRE = regexp.MustCompile(`^([a-zA-Z0-9-]+)/([a-zA-Z0-9_-][a-zA-Z0-9_.-]*)$`)

var sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// ParseConfig reads the metric plugins of a ConfigMap's data (none when
// the key is absent). Errors name the key, the item and the field.
func ParseConfig(data map[string]string) ([]Item, error) {
	raw := strings.TrimSpace(data[ConfigKey])
	if raw == "" {
		return nil, nil
	}
	var items []Item
	if err := yaml.UnmarshalStrict([]byte(raw), &items); err != nil {
		return nil, fmt.Errorf("%s: %w", ConfigKey, err)
	}
	seen := map[string]bool{}
	for i, it := range items {
		at := fmt.Sprintf("%s[%d]", ConfigKey, i)
		switch {
		case !nameRE.MatchString(it.Name):
			return nil, fmt.Errorf("%s.name %q is not <namespace>/<name>", at, it.Name)
		case seen[it.Name]:
			return nil, fmt.Errorf("%s.name %q is configured twice", at, it.Name)
		case it.Sha256 != "" && !sha256RE.MatchString(strings.ToLower(it.Sha256)):
			return nil, fmt.Errorf("%s.sha256 of %s is not 64 hex digits", at, it.Name)
		case len(it.HeadersFrom) > 0:
			return nil, fmt.Errorf("%s.headersFrom of %s is not supported by Ramp (download the binary into the image and use file://)", at, it.Name)
		}
		if _, _, err := splitLocation(it.Location); err != nil {
			return nil, fmt.Errorf("%s.location of %s: %w", at, it.Name, err)
		}
		seen[it.Name] = true
	}
	return items, nil
}
