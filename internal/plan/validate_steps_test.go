package plan

import (
	"strings"
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Upstream admits and runs a step that joins setCanaryScale or a route to
// one other action (its APISIX example: setCanaryScale + setHeaderRoute),
// and rejects an empty step or two of setWeight, pause, experiment, analysis.
func TestStepShapeProblem(t *testing.T) {
	w := int32(10)
	for _, c := range []struct {
		name string
		step rampv1.CanaryStep
		want string
	}{
		{"setWeight", rampv1.CanaryStep{SetWeight: &w}, ""},
		{"setCanaryScale + setHeaderRoute", rampv1.CanaryStep{SetCanaryScale: &rampv1.SetCanaryScale{Weight: &w},
			SetHeaderRoute: &rampv1.SetHeaderRoute{Name: "h"}}, ""},
		{"setWeight + setMirrorRoute", rampv1.CanaryStep{SetWeight: &w, SetMirrorRoute: &rampv1.SetMirrorRoute{Name: "m"}}, ""},
		{"empty", rampv1.CanaryStep{}, "sets no action"},
		{"setWeight + pause", rampv1.CanaryStep{SetWeight: &w, Pause: &rampv1.RolloutPause{}}, "more than one of setWeight, pause"},
	} {
		got := StepShapeProblem(c.step)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
