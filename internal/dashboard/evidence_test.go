package dashboard

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestGetRolloutEvidence: the detail carries the planner's forecast from
// the current step (with an HPA: the canary's pods taken from stable), the
// confirmation of each action with the planner's figures, the routers and
// their weights with the header route in place, and the HPA that scales
// the rollout (not the one of a Deployment of the same name).
func TestGetRolloutEvidence(t *testing.T) {
	c := fakeClientOf(t, &recorder{}, nil, routedWorld())
	w := do(t, testServer(t, Config{Reader: c}), "GET", "/api/rollouts/shop/web", "", nil)
	d := decode[RolloutDetail](t, w)
	f := d.Forecast
	if f.Note != "" || len(f.Points) != 5 || !f.Points[0].Current || f.Points[0].Index != 2 || f.Points[1].Index != 3 ||
		f.Points[1].Weight != "50%" || f.Points[1].Canary != 2 || f.Points[1].Stable != 2 || f.Points[3].Kind != "complete" {
		b, _ := json.MarshalIndent(f, "", " ")
		t.Errorf("forecast %s", b)
	}
	want := "Ends step 3 (pause) and moves on to step 4 (setWeight: 50): canary 2 pods, stable 2, 50% of traffic."
	if got := d.Confirm.Actions["promote"]; got != want {
		t.Errorf("promote says %q, want %q", got, want)
	}
	if len(d.Confirm.Undo) == 0 || d.Confirm.Undo[0].Revision != 0 {
		t.Errorf("undo targets %+v, want the previous revision first", d.Confirm.Undo)
	}
	tr := d.Traffic
	if tr == nil || len(tr.Routers) != 1 || tr.Routers[0].Name != "istio" || tr.Weights == nil || tr.Weights.Canary.Weight != 25 ||
		tr.Weights.Stable.Weight != 75 || len(tr.Routes) != 1 || tr.Routes[0].Match != `header X-Beta exact "yes"` {
		t.Errorf("traffic %+v", tr)
	}
	if len(d.HPAs) != 1 || d.HPAs[0].Name != "web-hpa" || d.HPAs[0].Min != 2 || d.HPAs[0].Desired != 5 || d.HPAs[0].Metrics[0].Current != "83%" {
		t.Errorf("HPAs %+v, want web-hpa only", d.HPAs)
	}
}

// BenchmarkGetRolloutEvidence: GET /api/rollouts/shop/web of the routed
// canary with an HPA, the planner's simulation included (it runs on every
// detail read).
func BenchmarkGetRolloutEvidence(b *testing.B) {
	for _, cached := range []bool{false, true} {
		b.Run(map[bool]string{false: "simulated", true: "cached"}[cached], func(b *testing.B) {
			objs := routedWorld()
			if cached {
				objs[0].SetGeneration(3) // versioned: the simulation is remembered
			}
			c := fake.NewClientBuilder().WithScheme(scheme(b)).WithObjects(objs...).Build()
			s, err := New(Config{Reader: c, Authn: Local{}, Log: logr.Discard()})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				w := httptest.NewRecorder()
				s.ServeHTTP(w, httptest.NewRequest("GET", "/api/rollouts/shop/web", nil))
				if w.Code != http.StatusOK {
					b.Fatal(w.Code)
				}
			}
		})
	}
}

// TestSimulationsRemembered: a spec versioned by the API server (UID and
// generation) is simulated once per generation and HPA presence; an
// unversioned one every time.
func TestSimulationsRemembered(t *testing.T) {
	ro := routedWorld()[0].(*rampv1.Rollout)
	ro.Generation = 3
	var c simulations
	first, _ := c.simulate(ro, false)
	ro.Spec.Strategy.Canary.Steps = ro.Spec.Strategy.Canary.Steps[:1] // unseen: same generation
	if again, _ := c.simulate(ro, false); len(again.Points) != len(first.Points) {
		t.Errorf("same generation simulated again: %d points, then %d", len(first.Points), len(again.Points))
	}
	if hpa, _ := c.simulate(ro, true); len(hpa.Points) == len(first.Points) {
		t.Errorf("with an HPA, the cached simulation without was used")
	}
	ro.Generation = 4
	if next, _ := c.simulate(ro, false); len(next.Points) == len(first.Points) {
		t.Errorf("a new generation got the previous one's simulation (%d points)", len(next.Points))
	}
	ro.Generation, ro.Spec.Strategy.Canary.Steps = 0, nil
	if none, _ := c.simulate(ro, false); len(none.Points) == len(first.Points) {
		t.Errorf("an unversioned spec got a remembered simulation")
	}
}

// TestSimulationsKeepOnePerRollout: the remembered simulations are one per
// Rollout (and HPA or not), whatever number of generations its spec went
// through, so editing a Rollout of a thousand steps over and over cannot
// grow the server's memory by a trajectory per edit.
func TestSimulationsKeepOnePerRollout(t *testing.T) {
	ro := routedWorld()[0].(*rampv1.Rollout)
	var c simulations
	for g := int64(1); g <= 20; g++ {
		ro.Generation = g
		if _, err := c.simulate(ro, false); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.simulate(ro, true); err != nil {
		t.Fatal(err)
	}
	if len(c.m) != 2 {
		t.Errorf("%d simulations kept for 20 generations of one rollout, with and without an HPA; want 2", len(c.m))
	}
}
