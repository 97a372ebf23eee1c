//go:build conformance

package conformance

import (
	"fmt"
	"os"
	"testing"
)

// cfg is the environment hack/conformance.sh sets.
var cfg struct {
	kubectl, plugin, logs string
}

var rampSide, upstreamSide *side

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	env := func(k string) string {
		v := os.Getenv(k)
		if v == "" {
			fmt.Fprintf(os.Stderr, "conformance: %s is unset; run the harness with `make conformance`\n", k)
			os.Exit(1)
		}
		return v
	}
	cfg.kubectl, cfg.plugin, cfg.logs = env("RAMP_CONF_KUBECTL"), env("RAMP_CONF_PLUGIN"), env("RAMP_CONF_LOGS")
	var err error
	if rampSide, err = newSide("ramp", env("RAMP_CONF_RAMP_KUBECONFIG")); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		return 1
	}
	if upstreamSide, err = newSide("upstream", env("RAMP_CONF_UPSTREAM_KUBECONFIG")); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		return 1
	}
	for s, bin := range map[*side]string{rampSide: env("RAMP_CONF_RAMP_CONTROLLER"), upstreamSide: env("RAMP_CONF_UPSTREAM_CONTROLLER")} {
		if err := s.start(bin, cfg.logs); err != nil {
			fmt.Fprintf(os.Stderr, "conformance: start %s controller: %v\n", s.name, err)
			return 1
		}
		defer s.stop()
	}
	return m.Run()
}

// TestConformance runs every scenario (only those marked ci when
// RAMP_CONF_SUBSET=ci) under both controllers and diffs the trajectories.
func TestConformance(t *testing.T) {
	subset := os.Getenv("RAMP_CONF_SUBSET") == "ci"
	for _, sc := range scenarios() {
		if subset && !sc.ci {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			runScenario(t, sc)
		})
	}
}
