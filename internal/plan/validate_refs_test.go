package plan

import (
	"slices"
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestServiceNames: the Services a strategy names, in spec order, empty
// names left out: what the reconciler reads, watches and the simulator
// imagines.
func TestServiceNames(t *testing.T) {
	canary := &rampv1.Rollout{}
	canary.Spec.Strategy.Canary = &rampv1.CanaryStrategy{CanaryService: "c", StableService: "s",
		PingPong: &rampv1.PingPongSpec{PingService: "ping", PongService: "pong"}}
	onlyStable := &rampv1.Rollout{}
	onlyStable.Spec.Strategy.Canary = &rampv1.CanaryStrategy{StableService: "s"}
	bg := &rampv1.Rollout{}
	bg.Spec.Strategy.BlueGreen = &rampv1.BlueGreenStrategy{ActiveService: "a", PreviewService: "p"}
	for _, tc := range []struct {
		name string
		ro   *rampv1.Rollout
		want []string
	}{
		{"canary with pingPong", canary, []string{"c", "s", "ping", "pong"}},
		{"stable only", onlyStable, []string{"s"}},
		{"blue-green", bg, []string{"a", "p"}},
		{"no strategy", &rampv1.Rollout{}, []string{}},
	} {
		if got := ServiceNames(tc.ro); !slices.Equal(got, tc.want) {
			t.Errorf("%s: ServiceNames = %q, want %q", tc.name, got, tc.want)
		}
	}
}
