package plan

import (
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// TestTrafficWeights: status.canary.weights of a route, in units of its
// maxTrafficWeight, and upstream's TrafficWeightUpdated message when the
// recorded destinations change.
func TestTrafficWeights(t *testing.T) {
	c := &rampv1.CanaryStrategy{CanaryService: "canary", StableService: "stable"}
	at := func(w, m int32, canaryHash string) *rampv1.TrafficWeights {
		return trafficWeights(c, traffic.Route{Canary: w, Max: m, StableHash: "v1", CanaryHash: "v2"}, true, canaryHash)
	}
	if w := at(250, 1000, "v2"); w.Canary.Weight != 250 || w.Stable.Weight != 750 || w.Stable.PodTemplateHash != "v1" ||
		w.Canary.PodTemplateHash != "v2" || w.Canary.ServiceName != "canary" || !*w.Verified {
		t.Errorf("weights at 250/1000: %+v", w)
	}
	if w := at(3, 7, "v2"); w.Canary.Weight != 3 || w.Stable.Weight != 4 {
		t.Errorf("weights at 3/7: canary %d, stable %d", w.Canary.Weight, w.Stable.Weight)
	}
	for _, tc := range []struct {
		name      string
		prev, cur *rampv1.TrafficWeights
		want      string
	}{
		{"first", nil, at(0, 7, "v2"), "Traffic weight updated to 0"},
		{"weight moves", at(2, 7, "v2"), at(5, 7, "v2"), "Traffic weight updated from 2 to 5"},
		{"destination moves", at(5, 1000, "v2"), at(5, 1000, "v3"), "Traffic weight updated "},
		{"same", at(5, 1000, "v2"), at(5, 1000, "v2"), ""},
	} {
		if got := weightsChange(tc.prev, tc.cur); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
