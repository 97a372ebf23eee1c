//go:build conformance

package conformance

// plan_trajectory_test.go and lint_corpus_test.go run Ramp's planner and
// lint, which read the router and provider registries: link what the
// controller ships.
import _ "github.com/ramp-rollouts/ramp/internal/builtin"
