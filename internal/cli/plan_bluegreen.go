package cli

import (
	"fmt"
	"io"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

func printBlueGreenPlan(w io.Writer, ro *rampv1.Rollout, fb plan.BlueGreenForecast, hpa bool) error {
	p := &printer{w: w}
	n := fb.Replicas
	p.printf("Rollout %s (blueGreen): %d replicas, preview %d\n", ro.Name, n, fb.Preview)
	preview := fb.PreviewService
	if preview == "" {
		preview = "(none)"
	}
	p.printf("active Service %s, preview Service %s\n", fb.ActiveService, preview)
	p.printf("The first deploy is active at once. An update, from %d active pods:\n\n", n)

	t, tw := p.table()
	head := "PHASE\tOLD\tNEW\tPODS\tACTIVE"
	if hpa {
		head += "\tHPA"
	}
	t.println(head + "\tWHAT HAPPENS")
	for _, p := range fb.Phases {
		row := fmt.Sprintf("%s\t%d\t%d\t%d\t%s", p.Phase, p.Old, p.New, p.Old+p.New, p.Active)
		if hpa {
			active := p.Old
			if p.Active == "new" {
				active = p.New
			}
			row += fmt.Sprintf("\t%d", active)
		}
		t.printf("%s\t%s\n", row, blueGreenPhaseText(ro.Spec.Strategy.BlueGreen, fb, p))
	}
	p.endTable(t, tw)
	if hpa {
		p.println("\nHPA: pods an HPA on this Rollout counts: only the active ReplicaSet's (its /scale selector includes the active hash)")
	}
	return p.err
}

// blueGreenPhaseText says what happens in one phase.
func blueGreenPhaseText(b *rampv1.BlueGreenStrategy, fb plan.BlueGreenForecast, p plan.ForecastPhase) string {
	switch p.Phase {
	case plan.PhasePreview:
		if fb.PreviewService == "" {
			return fmt.Sprintf("the new ReplicaSet comes up with %d pods", p.New)
		}
		return fmt.Sprintf("the preview Service selects the new pods once %d are available", p.New)
	case plan.PhasePrePromotion, plan.PhasePostPromotion:
		return gateText(p.Gate) + "; a failure aborts the update"
	case plan.PhasePromotion:
		switch {
		case p.Gate.Pause && p.Gate.Duration != nil:
			return fmt.Sprintf("paused, promotes by itself after %s (autoPromotionSeconds)", planDuration(*p.Gate.Duration))
		case p.Gate.Pause:
			return "paused until promoted (autoPromotionEnabled: false)"
		}
		return "promotes as soon as the preview is available (autoPromotionEnabled)"
	case plan.PhaseScaleUp:
		return fmt.Sprintf("the new ReplicaSet grows from %d to %d pods", fb.Preview, p.New)
	case plan.PhaseSwitch:
		return fmt.Sprintf("the active Service switches to the new pods once all %d are available", p.New)
	case plan.PhaseScaleDown:
		delay := "at once"
		if p.Delay > 0 {
			delay = "after " + planDuration(p.Delay)
		}
		return fmt.Sprintf("the old ReplicaSet goes to 0 %s (scaleDownDelaySeconds)", delay)
	}
	return "-"
}
