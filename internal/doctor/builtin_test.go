package doctor

// The tests see the routers and providers the controller ships: the
// registries this package reads are filled by their packages' init.
import _ "github.com/ramp-rollouts/ramp/internal/builtin"
