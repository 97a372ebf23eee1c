package dashboard

import (
	"net/http"
	"runtime/debug"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestGetRolloutHostileSpecs: a Rollout the API server accepted but the
// controller would not run (no strategy, both strategies, nil replicas, no
// selector, 10,000 steps, the most replicas an int32 holds, negative or
// enormous pauses, a status step index before or past the steps) gets a
// detail and a list row, never a panic; an invalid spec's forecast says
// why there is none.
func TestGetRolloutHostileSpecs(t *testing.T) {
	many := make([]rampv1.CanaryStep, 10000)
	for i := range many {
		many[i] = rampv1.CanaryStep{SetWeight: ptr.To(int32(i % 100))}
	}
	cases := map[string]struct {
		edit func(*rampv1.Rollout)
		note string // in the forecast's note, "" for any
	}{
		"no strategy":           {func(ro *rampv1.Rollout) { ro.Spec.Strategy = rampv1.RolloutStrategy{} }, "InvalidSpec"},
		"both strategies":       {func(ro *rampv1.Rollout) { ro.Spec.Strategy.BlueGreen = &rampv1.BlueGreenStrategy{ActiveService: "a"} }, "InvalidSpec"},
		"nil replicas":          {func(ro *rampv1.Rollout) { ro.Spec.Replicas = nil }, ""},
		"no selector, template": {func(ro *rampv1.Rollout) { ro.Spec.Selector, ro.Spec.Template = nil, nil }, ""},
		"empty steps":           {func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.Steps = []rampv1.CanaryStep{{}, {}} }, ""},
		"10,000 steps":          {func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.Steps = many }, ""},
		"max replicas":          {func(ro *rampv1.Rollout) { ro.Spec.Replicas = ptr.To[int32](1<<31 - 1) }, ""},
		"negative pause":        {func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.Steps[1].Pause.Duration = ptr.To(intstr.FromInt(-5)) }, ""},
		"negative pause string": {func(ro *rampv1.Rollout) {
			ro.Spec.Strategy.Canary.Steps[1].Pause.Duration = ptr.To(intstr.FromString("-1h"))
		}, ""},
		"enormous pause": {func(ro *rampv1.Rollout) {
			ro.Spec.Strategy.Canary.Steps[1].Pause.Duration = ptr.To(intstr.FromString("999999999999h"))
		}, ""},
		"step index past steps": {func(ro *rampv1.Rollout) { ro.Status.CurrentStepIndex = ptr.To[int32](99) }, ""},
		"negative step index":   {func(ro *rampv1.Rollout) { ro.Status.CurrentStepIndex = ptr.To[int32](-3) }, ""},
		"blue-green, no service": {func(ro *rampv1.Rollout) {
			ro.Spec.Strategy = rampv1.RolloutStrategy{BlueGreen: &rampv1.BlueGreenStrategy{}}
		}, "InvalidSpec"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			objs := world()
			c.edit(objs[0].(*rampv1.Rollout))
			s := testServer(t, Config{Reader: fakeClientOf(t, &recorder{}, nil, objs)})
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panicked: %v\n%s", r, debug.Stack())
				}
			}()
			rec := do(t, s, "GET", "/api/rollouts/shop/web", "", nil)
			d := decode[RolloutDetail](t, rec)
			if rec.Code != http.StatusOK || d.Rollout.Name != "web" || !strings.Contains(d.Forecast.Note, c.note) {
				t.Errorf("GET = %d, forecast note %q, want 200 with a note containing %q", rec.Code, d.Forecast.Note, c.note)
			}
			if l := do(t, s, "GET", "/api/rollouts", "", nil); l.Code != http.StatusOK || len(decode[RolloutList](t, l).Items) != 2 {
				t.Errorf("GET /api/rollouts = %d %.200s", l.Code, l.Body)
			}
		})
	}
}
