package provider

import (
	"fmt"
	"slices"
	"strings"
)

// Supported lists the providers this version of Ramp runs: the controller
// registers exactly these (a test holds it to that), and lint, plan and the
// controller refuse the others with Unsupported's words.
var Supported = []string{"job", "prometheus", "web"}

// Unsupported is the refusal of a provider this version does not run ("" for
// one it runs).
func Unsupported(name string) string {
	if name == "" || slices.Contains(Supported, name) {
		return ""
	}
	return fmt.Sprintf("provider %s is not supported by this version of Ramp (supported: %s)", name, strings.Join(Supported, ", "))
}
