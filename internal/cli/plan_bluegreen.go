package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

func printBlueGreenPlan(w io.Writer, ro *rampv1.Rollout, fb plan.BlueGreenForecast, hpa bool) {
	n := fb.Replicas
	fmt.Fprintf(w, "Rollout %s (blueGreen): %d replicas, preview %d\n", ro.Name, n, fb.Preview)
	preview := fb.PreviewService
	if preview == "" {
		preview = "(none)"
	}
	fmt.Fprintf(w, "active Service %s, preview Service %s\n", fb.ActiveService, preview)
	fmt.Fprintf(w, "The first deploy is active at once. An update, from %d active pods:\n\n", n)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "PHASE\tOLD\tNEW\tPODS\tACTIVE"
	if hpa {
		head += "\tHPA"
	}
	fmt.Fprintln(tw, head+"\tWHAT HAPPENS")
	for _, p := range fb.Phases {
		row := fmt.Sprintf("%s\t%d\t%d\t%d\t%s", p.Phase, p.Old, p.New, p.Old+p.New, p.Active)
		if hpa {
			active := p.Old
			if p.Active == "new" {
				active = p.New
			}
			row += fmt.Sprintf("\t%d", active)
		}
		fmt.Fprintf(tw, "%s\t%s\n", row, blueGreenPhaseText(ro.Spec.Strategy.BlueGreen, fb, p))
	}
	tw.Flush()
	if hpa {
		fmt.Fprintln(w, "\nHPA: pods an HPA on this Rollout counts: only the active ReplicaSet's (its /scale selector includes the active hash)")
	}
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
