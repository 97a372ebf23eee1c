package view

import (
	"fmt"
	"strings"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// How a simulated update (plan.Simulate) reads to a person: the texts of
// `ramp plan` and of the dashboard's forecast, the same words in both.

// GateText describes a gate: "paused until promoted", "paused 10s",
// "analysis success-rate must pass".
func GateText(g plan.Gate) string {
	switch {
	case g.Pause && g.Duration == nil:
		return "paused until promoted"
	case g.Pause:
		return "paused " + PlanDuration(*g.Duration)
	case len(g.Analysis) > 0:
		return "analysis " + strings.Join(g.Analysis, ", ") + " must pass"
	case g.Other != "":
		return "waits for " + g.Other
	}
	return ""
}

// PlanWeight is a weight as a percentage, or in units of maxTrafficWeight.
func PlanWeight(w, maxWeight int32) string {
	if maxWeight == 100 {
		return fmt.Sprintf("%d%%", w)
	}
	return fmt.Sprintf("%d/%d", w, maxWeight)
}

// PlanDuration prints 1h0m0s as 1h and 2m0s as 2m.
func PlanDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// CanaryActual is the weight the canary gets once p settles: with
// trafficRouting what the routers hold (all of it once the new ReplicaSet
// is stable: the stable Service then selects it), otherwise its share of
// the pods, starred when that is not the step's weight.
func CanaryActual(tr plan.Trajectory, p plan.Point) (string, bool) {
	if p.Kind != plan.PointStep {
		return "100%", false
	}
	if tr.Routed {
		return fmt.Sprintf("%d%%", (int64(p.Traffic)*1000/int64(max(tr.MaxWeight, 1))+5)/10), false
	}
	pods := max(p.New.Spec+p.Old.Spec, 1)
	actual := fmt.Sprintf("%d%%", (int64(p.New.Spec)*1000/int64(pods)+5)/10)
	if int64(p.New.Spec)*100 != int64(p.Weight)*int64(pods) {
		return actual + "*", true
	}
	return actual, false
}

// CanaryGate is what holds a point besides its pods, and what happens there.
func CanaryGate(tr plan.Trajectory, p plan.Point) string {
	var parts []string
	switch {
	case p.Stalled:
		s := "stalls here: the controller never completes this step"
		if tr.Routed && p.Traffic != p.Weight {
			s += fmt.Sprintf(" (its %d available canary pod(s) carry %s, not %s)", p.New.Available,
				PlanWeight(p.Traffic, tr.MaxWeight), PlanWeight(p.Weight, tr.MaxWeight))
		}
		parts = append(parts, s)
	case p.Kind == plan.PointComplete && p.Delay > 0:
		parts = append(parts, "the new ReplicaSet becomes stable; the previous one stays "+PlanDuration(p.Delay)+" (scaleDownDelaySeconds)")
	case p.Kind == plan.PointComplete && tr.Routed && p.Old.Spec == 0:
		parts = append(parts, "the new ReplicaSet becomes stable; the previous one went to 0 as the stable Service left it")
	case p.Kind == plan.PointComplete:
		parts = append(parts, "the new ReplicaSet becomes stable")
	case p.Kind == plan.PointScaledDown:
		parts = append(parts, "the previous ReplicaSet goes to 0")
	}
	if !p.Stalled {
		if g := GateText(p.Gate); g != "" {
			parts = append(parts, g)
		}
	}
	if len(tr.Background) > 0 && int32(p.Index) == tr.BackgroundFrom && p.Kind == plan.PointStep {
		parts = append(parts, "background analysis starts")
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "; ")
}

// PhaseText says what happens at one point.
func PhaseText(b *rampv1.BlueGreenStrategy, tr plan.Trajectory, p plan.Point) string {
	switch p.Kind {
	case plan.PhasePreview:
		if b.PreviewService == "" {
			return fmt.Sprintf("the new ReplicaSet comes up with %d pods", p.New.Spec)
		}
		return fmt.Sprintf("the preview Service selects the new pods once %d are available", p.New.Spec)
	case plan.PhasePrePromotion, plan.PhasePostPromotion:
		return GateText(p.Gate) + "; a failure aborts the update"
	case plan.PhasePromotion:
		if d := p.Gate.Duration; d != nil {
			return fmt.Sprintf("paused, promotes by itself after %s (autoPromotionSeconds)", PlanDuration(*d))
		}
		return "paused until promoted (autoPromotionEnabled: false)"
	case plan.PhaseScaleUp:
		return fmt.Sprintf("the new ReplicaSet grows from %d to %d pods", tr.Preview, p.New.Spec)
	case plan.PhaseSwitch:
		return fmt.Sprintf("the active Service switches to the new pods once all %d are available", p.New.Spec)
	case plan.PointComplete:
		if p.Delay > 0 {
			return "the new ReplicaSet becomes stable; the old one stays " + PlanDuration(p.Delay) + " (scaleDownDelaySeconds)"
		}
		return "the new ReplicaSet becomes stable; the old one goes to 0 at once (scaleDownDelaySeconds: 0)"
	case plan.PointScaledDown:
		for _, c := range tr.Points {
			if c.Kind == plan.PointComplete && c.Delay > 0 {
				return "the old ReplicaSet goes to 0 after " + PlanDuration(c.Delay) + " (scaleDownDelaySeconds)"
			}
		}
		return "the old ReplicaSet goes to 0"
	}
	if p.Stalled {
		return "stalls here: the controller never completes the update"
	}
	return "-"
}
