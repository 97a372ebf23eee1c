package plan

import (
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// TestReleaseRoute: a deleted Rollout's routes go back to stable, all of
// the weight in its maxTrafficWeight's units, whatever the update held.
func TestReleaseRoute(t *testing.T) {
	routed := func(max *int32) *rampv1.Rollout {
		ro := &rampv1.Rollout{}
		ro.Spec.Strategy.Canary = &rampv1.CanaryStrategy{TrafficRouting: &rampv1.RolloutTrafficRouting{MaxTrafficWeight: max}}
		ro.Status.StableRS, ro.Status.CurrentPodHash = "v1", "v2"
		ro.Status.Canary.Weights = &rampv1.TrafficWeights{Canary: rampv1.WeightDestination{Weight: 40, PodTemplateHash: "v2"}}
		return ro
	}
	noCanary := &rampv1.Rollout{}
	noCanary.Status.StableRS = "v1"
	for _, tc := range []struct {
		name string
		ro   *rampv1.Rollout
		want traffic.Route
	}{
		{"default max", routed(nil), traffic.Route{Max: 100, StableHash: "v1", CanaryHash: "v1"}},
		{"max 1000", routed(ptrTo(int32(1000))), traffic.Route{Max: 1000, StableHash: "v1", CanaryHash: "v1"}},
		{"max 7", routed(ptrTo(int32(7))), traffic.Route{Max: 7, StableHash: "v1", CanaryHash: "v1"}},
		{"strategy no longer canary", noCanary, traffic.Route{Max: 100, StableHash: "v1", CanaryHash: "v1"}},
	} {
		got := ReleaseRoute(tc.ro)
		if !sameRoute(got, tc.want) || got.Stable() != got.Max {
			t.Errorf("%s: ReleaseRoute = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
