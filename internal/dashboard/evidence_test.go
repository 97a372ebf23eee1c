package dashboard

import (
	"encoding/json"
	"testing"
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
