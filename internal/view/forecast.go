package view

import (
	"errors"
	"slices"
	"strconv"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// Forecast is Ramp's plan of what remains of a Rollout's update: the points
// `ramp plan` prints (plan.Simulate, the controller's own planner), from
// where the Rollout is now to the previous ReplicaSet scaled down.
//
// The simulator walks an update from its start (it cannot begin from a
// live cluster's ReplicaSets and routes), so the forecast is that walk,
// shown from the current step (canary) or phase (blue-green) on: the counts
// are the planner's for the spec, with every pod available at once and
// every gate opened as it is met, not a measurement.
type Forecast struct {
	// Basis says how the forecast was made, for the page to show.
	Basis string `json:"basis"`
	// Note says why there is nothing (or less) to forecast: no update in
	// progress, aborted, an InvalidSpec; empty otherwise.
	Note   string          `json:"note,omitempty"`
	Points []ForecastPoint `json:"points,omitempty"`
}

// ForecastPoint is one remaining point of the update.
type ForecastPoint struct {
	// Index is the canary step (-1 for the points after the steps and for
	// blue-green), as the timeline numbers steps from 0.
	Index int `json:"index"`
	// Kind is the plan's: "step", "complete", "scaleDown", or a blue-green
	// phase ("preview", "prePromotion", "promotion", "scaleUp", "switch",
	// "postPromotion").
	Kind string `json:"kind"`
	// Step is the step as written or the phase.
	Step string `json:"step"`
	// Weight is the canary's setWeight then; Actual the traffic it gets
	// (canary only).
	Weight string `json:"weight,omitempty"`
	Actual string `json:"actual,omitempty"`
	// Canary and Stable are the pods of the new and the previous
	// ReplicaSet (.spec.replicas) once the point settles.
	Canary int32 `json:"canary"`
	Stable int32 `json:"stable"`
	// Active is what the active Service selects (blue-green): old or new.
	Active string `json:"active,omitempty"`
	// Gate is what holds the update there or what happens, in words.
	Gate string `json:"gate,omitempty"`
	// Current marks the point the Rollout is at now (none when aborted).
	Current bool `json:"current,omitempty"`
}

// ForecastBasis is the Basis of every forecast.
const ForecastBasis = "Ramp's planner (as `ramp plan`) simulates the update from its start, pods available at once and each gate opened; " +
	"shown from where the rollout is now"

// ForecastOf is the forecast of ro's update from tr, the planner's
// simulation of it (plan.Simulate; err its error).
func ForecastOf(ro *rampv1.Rollout, tr plan.Trajectory, err error) Forecast {
	f := Forecast{Basis: ForecastBasis}
	var spec *plan.SpecError
	switch {
	case errors.As(err, &spec):
		f.Note = "The controller would not run this spec (InvalidSpec): " + spec.Error()
		return f
	case err != nil:
		f.Note = "The planner cannot forecast this update: " + err.Error()
		return f
	}
	pts, note := Remaining(ro, tr)
	f.Note = note
	for _, p := range pts {
		f.Points = append(f.Points, forecastPoint(tr, ro, p))
	}
	if len(f.Points) > 0 && !ro.Status.Abort { // aborted: the points are a retry's, none is where the rollout is
		f.Points[0].Current = true
	}
	return f
}

func forecastPoint(tr plan.Trajectory, ro *rampv1.Rollout, p plan.Point) ForecastPoint {
	fp := ForecastPoint{Index: -1, Kind: p.Kind, Step: p.Step, Canary: p.New.Spec, Stable: p.Old.Spec, Active: p.Active}
	if tr.Strategy == plan.StrategyBlueGreen {
		fp.Gate = PhaseText(ro.Spec.Strategy.BlueGreen, tr, p)
		return fp
	}
	if p.Kind == plan.PointStep && p.Index < len(ro.Spec.Strategy.Canary.Steps) {
		fp.Index = p.Index
	}
	fp.Weight = PlanWeight(p.Weight, tr.MaxWeight)
	fp.Actual, _ = CanaryActual(tr, p)
	if g := CanaryGate(tr, p); g != "-" {
		fp.Gate = g
	}
	return fp
}

// updating reports whether ro is in the middle of an update the controller
// has seen: a new pod template that is not yet stable.
func updating(ro *rampv1.Rollout) bool {
	st := &ro.Status
	return st.StableRS != "" && st.CurrentPodHash != "" && st.CurrentPodHash != st.StableRS
}

// Remaining are the points of tr still ahead of ro, and a note when there
// is nothing (or less) ahead: before the first deploy and after an update
// there is none; an aborted update waits for retry, which starts it again
// from the first step (every point); promote --full skips the steps.
func Remaining(ro *rampv1.Rollout, tr plan.Trajectory) ([]plan.Point, string) {
	st := &ro.Status
	switch {
	case st.StableRS == "":
		return nil, "No update yet: the first deploy goes straight to the spec; the steps run from the next update."
	case !updating(ro):
		return nil, "No update in progress: the rollout is on its stable revision. The next update walks the steps of `ramp plan`."
	case st.Abort:
		return tr.Points, "Aborted: traffic is back on stable. If retried, the update starts again from the beginning, as below."
	}
	if tr.Strategy == plan.StrategyBlueGreen {
		from, note := phaseRank(blueGreenPhase(ro)), ""
		if st.PromoteFull { // the controller's next pass skips the analysis and pause before the scale-up
			from, note = max(from, phaseRank(plan.PhaseScaleUp)), "Promoted fully: the pre-promotion analysis and the promotion pause are skipped."
		}
		return slices.DeleteFunc(slices.Clone(tr.Points), func(p plan.Point) bool { return phaseRank(p.Kind) < from }), note
	}
	idx := 0
	if i := st.CurrentStepIndex; i != nil {
		idx = int(*i)
	}
	note := ""
	if st.PromoteFull {
		idx, note = len(ro.Spec.Strategy.Canary.Steps), "Promoted fully: the remaining steps are skipped."
	}
	return slices.DeleteFunc(slices.Clone(tr.Points), func(p plan.Point) bool {
		return p.Kind == plan.PointStep && p.Index < idx
	}), note
}

// blueGreenOrder is the order of a blue-green update's points.
var blueGreenOrder = []string{plan.PhasePreview, plan.PhasePrePromotion, plan.PhasePromotion, plan.PhaseScaleUp,
	plan.PhaseSwitch, plan.PhasePostPromotion, plan.PointComplete, plan.PointScaledDown}

func phaseRank(kind string) int {
	if i := slices.Index(blueGreenOrder, kind); i >= 0 {
		return i
	}
	return len(blueGreenOrder) // stalled: last
}

// blueGreenPhase is the phase a blue-green update is in, from its status.
func blueGreenPhase(ro *rampv1.Rollout) string {
	st := &ro.Status
	bg := st.BlueGreen
	switch {
	case bg.ActiveSelector != "" && bg.ActiveSelector == st.CurrentPodHash:
		return plan.PhasePostPromotion
	case bg.ScaleUpPreviewCheckPoint:
		return plan.PhaseScaleUp
	case slices.ContainsFunc(st.PauseConditions, func(pc rampv1.PauseCondition) bool { return pc.Reason == rampv1.PauseReasonBlueGreenPause }):
		return plan.PhasePromotion
	case bg.PrePromotionAnalysisRunStatus != nil:
		return plan.PhasePrePromotion
	}
	return plan.PhasePreview
}

// stepName is "step 3 (setWeight: 40)" for the step at index i (numbered
// from 1, as the page shows them), or "the end of the steps (fully
// promoted)".
func stepName(ro *rampv1.Rollout, i int) string {
	c := ro.Spec.Strategy.Canary
	if c == nil || i < 0 || i >= len(c.Steps) {
		return "the end of the steps (fully promoted)"
	}
	return "step " + strconv.Itoa(i+1) + " (" + plan.DescribeStep(c.Steps[i]) + ")"
}
