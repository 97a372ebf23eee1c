package view

import (
	"strconv"
	"strings"
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// TestForecastOf: the forecast starts where the Rollout is (the current
// canary step or blue-green phase, marked current), carries the planner's
// figures for each remaining point, and says why it is empty or partial
// (no update, aborted: a retry's points, none current; promoted fully, an
// InvalidSpec).
func TestForecastOf(t *testing.T) {
	canary := func() *rampv1.Rollout {
		return planRollout(5, canaryOf(setW(20), pause(""), setW(40), pause("1m")))
	}
	type want struct {
		kinds []string // Kind:Index of each point, in order
		first ForecastPoint
		note  string
	}
	cases := map[string]struct {
		ro   func() *rampv1.Rollout
		hpa  bool
		want want
	}{
		"canary paused at step 2": {
			ro: func() *rampv1.Rollout { ro := canary(); updatingAt(ro, 1); return ro },
			want: want{kinds: []string{"step:1", "step:2", "step:3", "complete:-1"},
				first: ForecastPoint{Index: 1, Kind: "step", Step: "pause", Weight: "20%", Actual: "20%", Canary: 1, Stable: 4, Gate: "paused until promoted", Current: true}},
		},
		"canary at its last step": {
			ro:   func() *rampv1.Rollout { ro := canary(); updatingAt(ro, 3); return ro },
			want: want{kinds: []string{"step:3", "complete:-1"}, first: ForecastPoint{Index: 3, Kind: "step", Step: "pause: 1m", Weight: "40%", Actual: "40%", Canary: 2, Stable: 3, Gate: "paused 1m", Current: true}},
		},
		"promoted fully": {
			ro: func() *rampv1.Rollout {
				ro := canary()
				updatingAt(ro, 1)
				ro.Status.PromoteFull = true
				return ro
			},
			want: want{kinds: []string{"complete:-1"}, note: "Promoted fully", first: ForecastPoint{Index: -1, Kind: "complete", Step: "complete", Weight: "100%", Actual: "100%", Canary: 5, Gate: "the new ReplicaSet becomes stable", Current: true}},
		},
		"aborted: retry walks every step": {
			ro: func() *rampv1.Rollout {
				ro := canary()
				updatingAt(ro, 2)
				ro.Status.Abort = true
				return ro
			},
			want: want{kinds: []string{"step:0", "step:1", "step:2", "step:3", "complete:-1"}, note: "Aborted",
				first: ForecastPoint{Index: 0, Kind: "step", Step: "setWeight: 20", Weight: "20%", Actual: "20%", Canary: 1, Stable: 4}},
		},
		"no update in progress": {
			ro: func() *rampv1.Rollout {
				ro := canary()
				ro.Status.StableRS, ro.Status.CurrentPodHash = "a", "a"
				return ro
			},
			want: want{note: "No update in progress"},
		},
		"never deployed": {ro: canary, want: want{note: "No update yet"}},
		"invalid spec": {
			ro: func() *rampv1.Rollout {
				ro := canary()
				updatingAt(ro, 0)
				ro.Spec.Strategy.BlueGreen = &rampv1.BlueGreenStrategy{ActiveService: "a"}
				return ro
			},
			want: want{note: "InvalidSpec"},
		},
		"routed canary with an HPA takes pods from stable": {
			ro: func() *rampv1.Rollout {
				ro := planRollout(4, canaryOf(setW(50), pause("")))
				ro.Spec.Strategy.Canary.CanaryService, ro.Spec.Strategy.Canary.StableService = "web-canary", "web-stable"
				ro.Spec.Strategy.Canary.TrafficRouting = &rampv1.RolloutTrafficRouting{Nginx: &rampv1.NginxTrafficRouting{StableIngress: "web"}}
				updatingAt(ro, 1)
				return ro
			},
			hpa: true,
			want: want{kinds: []string{"step:1", "complete:-1", "scaleDown:-1"},
				first: ForecastPoint{Index: 1, Kind: "step", Step: "pause", Weight: "50%", Actual: "50%", Canary: 2, Stable: 2, Gate: "paused until promoted", Current: true}},
		},
		"blue-green paused for promotion": {
			ro: func() *rampv1.Rollout {
				ro := blueGreenRollout(4)
				ro.Status.StableRS, ro.Status.CurrentPodHash = "a", "b"
				ro.Status.PauseConditions = []rampv1.PauseCondition{{Reason: rampv1.PauseReasonBlueGreenPause}}
				return ro
			},
			want: want{kinds: []string{"promotion:-1", "switch:-1", "complete:-1", "scaleDown:-1"},
				first: ForecastPoint{Index: -1, Kind: "promotion", Step: "promotion", Canary: 4, Stable: 4, Active: "old", Gate: "paused until promoted (autoPromotionEnabled: false)", Current: true}},
		},
		"blue-green promoted fully before the controller's next pass": {
			ro: func() *rampv1.Rollout {
				ro := blueGreenRollout(4)
				ro.Status.StableRS, ro.Status.CurrentPodHash = "a", "b"
				ro.Status.PauseConditions = []rampv1.PauseCondition{{Reason: rampv1.PauseReasonBlueGreenPause}}
				ro.Status.PromoteFull = true
				return ro
			},
			want: want{kinds: []string{"switch:-1", "complete:-1", "scaleDown:-1"}, note: "Promoted fully",
				first: ForecastPoint{Index: -1, Kind: "switch", Step: "switch", Canary: 4, Stable: 4, Active: "new",
					Gate: "the active Service switches to the new pods once all 4 are available", Current: true}},
		},
		"blue-green switched": {
			ro: func() *rampv1.Rollout {
				ro := blueGreenRollout(4)
				ro.Status.StableRS, ro.Status.CurrentPodHash, ro.Status.BlueGreen.ActiveSelector = "a", "b", "b"
				return ro
			},
			want: want{kinds: []string{"complete:-1", "scaleDown:-1"}, first: ForecastPoint{Index: -1, Kind: "complete", Step: "complete", Canary: 4, Stable: 4, Active: "new",
				Gate: "the new ReplicaSet becomes stable; the old one stays 30s (scaleDownDelaySeconds)", Current: true}},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			ro := c.ro()
			tr, err := plan.Simulate(ro, plan.SimOptions{HPA: c.hpa})
			f := ForecastOf(ro, tr, err)
			var kinds []string
			for _, p := range f.Points {
				kinds = append(kinds, p.Kind+":"+strconv.Itoa(p.Index))
			}
			if strings.Join(kinds, " ") != strings.Join(c.want.kinds, " ") {
				t.Errorf("points %v, want %v", kinds, c.want.kinds)
			}
			if len(f.Points) > 0 && f.Points[0] != c.want.first {
				t.Errorf("first point\n %+v, want\n %+v", f.Points[0], c.want.first)
			}
			if !strings.Contains(f.Note, c.want.note) || (c.want.note == "") != (f.Note == "") {
				t.Errorf("note %q, want one containing %q", f.Note, c.want.note)
			}
			for _, p := range f.Points[min(1, len(f.Points)):] {
				if p.Current {
					t.Errorf("point %+v marked current besides the first", p)
				}
			}
			if f.Basis != ForecastBasis {
				t.Errorf("basis %q", f.Basis)
			}
		})
	}
}
