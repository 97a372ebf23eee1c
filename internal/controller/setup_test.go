package controller

import (
	"slices"
	"testing"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// TestProvidersSupported holds the capability table that lint, plan and the
// AnalysisRun controller refuse providers by to what this build registers.
func TestProvidersSupported(t *testing.T) {
	var names []string
	for name := range providerSet(nil, nil) {
		names = append(names, name)
	}
	slices.Sort(names)
	if !slices.Equal(names, provider.Supported) {
		t.Fatalf("registered providers %v, provider.Supported %v", names, provider.Supported)
	}
	if provider.Unsupported("web") != "" || provider.Unsupported("datadog") == "" {
		t.Fatalf("Unsupported: web %q, datadog %q", provider.Unsupported("web"), provider.Unsupported("datadog"))
	}
}
