package conformance

import (
	"os"
	"strings"
	"testing"
)

// TestImprovementsDocumented: every intended difference the harness accepts
// has its row in docs/conformance.md, so the list users read is the list the
// harness enforces.
func TestImprovementsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/conformance.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, imp := range improvements {
		if seen[imp.id] {
			t.Errorf("improvement %q is listed twice", imp.id)
		}
		seen[imp.id] = true
		if !strings.Contains(string(doc), "| `"+imp.id+"` |") {
			t.Errorf("improvement %q has no row \"| `%s` | ...\" in docs/conformance.md", imp.id, imp.id)
		}
	}
}
