package cli

import (
	"fmt"
	"io"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
	"github.com/ramp-rollouts/ramp/internal/view"
)

// printBlueGreenPlan writes the plan of a blue-green Rollout: one row per
// phase of the simulated update.
func printBlueGreenPlan(w io.Writer, ro *rampv1.Rollout, tr plan.Trajectory, hpa bool) error {
	out := &printer{w: w}
	b, n := ro.Spec.Strategy.BlueGreen, tr.Replicas
	out.printf("Rollout %s (blueGreen): %d replicas, preview %d\n", ro.Name, n, tr.Preview)
	preview := b.PreviewService
	if preview == "" {
		preview = "(none)"
	}
	out.printf("active Service %s, preview Service %s\n", b.ActiveService, preview)
	out.printf("The first deploy is active at once. An update, from %d active pods:\n\n", tr.Initial.New.Spec)

	t, tw := out.table()
	head := "PHASE\tOLD\tNEW\tPODS\tACTIVE"
	if hpa {
		head += "\tHPA"
	}
	t.println(head + "\tWHAT HAPPENS")
	for i, p := range tr.Points {
		text := view.PhaseText(b, tr, p)
		if p.Kind == plan.PhaseSwitch && i+1 < len(tr.Points) && tr.Points[i+1].Kind == plan.PointComplete &&
			tr.Points[i+1].Old == p.Old && tr.Points[i+1].New == p.New {
			text += "; it becomes stable" // the switch completes the update: no row of its own
		} else if p.Kind == plan.PointComplete && i > 0 && tr.Points[i-1].Kind == plan.PhaseSwitch &&
			tr.Points[i-1].Old == p.Old && tr.Points[i-1].New == p.New {
			continue
		}
		row := fmt.Sprintf("%s\t%d\t%d\t%d\t%s", p.Step, p.Old.Spec, p.New.Spec, p.Old.Spec+p.New.Spec, p.Active)
		if hpa {
			row += fmt.Sprintf("\t%d", p.HPAPods)
		}
		t.printf("%s\t%s\n", row, text)
	}
	out.endTable(t, tw)
	if hpa {
		out.println("\nHPA: pods an HPA on this Rollout counts: only the active ReplicaSet's (its /scale selector includes the active hash)")
	}
	return out.err
}
