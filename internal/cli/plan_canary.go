package cli

import (
	"fmt"
	"io"
	"strings"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
	"github.com/ramp-rollouts/ramp/internal/view"
)

// printCanaryPlan writes the plan of a canary Rollout: one row per point of
// the simulated update. upstream, with --hpa, is the same update without an
// HPA, which runs as Argo Rollouts runs it (its HPA column is UPSTREAM).
func printCanaryPlan(w io.Writer, ro *rampv1.Rollout, tr plan.Trajectory, upstream *plan.Trajectory) error {
	out := &printer{w: w}
	c, n, hpa := ro.Spec.Strategy.Canary, tr.Replicas, upstream != nil
	if tr.Routed {
		out.printf("Rollout %s (canary): %d replicas, trafficRouting (%s)\n", ro.Name, n, planRouters(c.TrafficRouting))
		out.println("traffic: the routers send the canary each step's weight once its pods are available")
		out.println("pods: " + routedPods(ro, tr))
	} else {
		out.printf("Rollout %s (canary): %d replicas, maxSurge %d, maxUnavailable %d\n", ro.Name, n, tr.Surge, tr.Unavailable)
		out.println("traffic: follows the pods (no trafficRouting)")
	}
	if len(tr.Background) > 0 {
		out.printf("background analysis: %s from step %d until the update completes; Failed or Error aborts it, Inconclusive pauses it\n",
			strings.Join(tr.Background, ", "), tr.BackgroundFrom)
	}
	out.printf("The first deploy skips the steps. An update, from %d stable pods:\n\n", tr.Initial.New.Spec)

	t, tw := out.table()
	head := "STEP\tACTION\tWEIGHT\tACTUAL\tCANARY\tSTABLE"
	if hpa {
		head += "\tHPA\tUPSTREAM"
	}
	t.println(head + "\tPEAK\tGATE")
	rounded := false
	for _, p := range tr.Points {
		idx := "-"
		if p.Kind == plan.PointStep && p.Index < len(c.Steps) {
			idx = fmt.Sprint(p.Index)
		}
		actual, star := view.CanaryActual(tr, p)
		rounded = rounded || star
		row := fmt.Sprintf("%s\t%s\t%s\t%s\t%d\t%d", idx, p.Step, view.PlanWeight(p.Weight, tr.MaxWeight), actual, p.New.Spec, p.Old.Spec)
		if hpa {
			row += fmt.Sprintf("\t%d\t%s", p.HPAPods, upstreamPods(upstream, p))
		}
		t.printf("%s\t%s\t%s\n", row, planPeak(p.Peak), view.CanaryGate(tr, p))
	}
	out.endTable(t, tw)

	out.println()
	if rounded {
		out.println("* pods are whole: ACTUAL is the canary's share of canary + stable, the split closest to WEIGHT;")
		out.println("  with maxSurge it may use replicas + 1 pods (10% of 5 replicas: 1 canary + 5 stable = 17%)")
	}
	for _, line := range canaryFooter(ro, tr, hpa) {
		out.println(line)
	}
	return out.err
}

// upstreamPods is the HPA count of upstream's run at the same point.
func upstreamPods(upstream *plan.Trajectory, p plan.Point) string {
	for _, u := range upstream.Points {
		if u.Kind == p.Kind && u.Index == p.Index && !u.Stalled {
			return fmt.Sprint(u.HPAPods)
		}
	}
	return "-"
}

func planPeak(peak int32) string {
	if peak == 0 {
		return "-"
	}
	return fmt.Sprint(peak)
}

// routedPods says how a traffic-routed canary's pods are counted.
func routedPods(ro *rampv1.Rollout, tr plan.Trajectory) string {
	switch {
	case tr.TakesFromStable:
		return fmt.Sprintf("an HPA targets this Rollout, so canary pods are taken from stable (stable keeps minPodsPerReplicaSet %d)", tr.MinPods)
	case ro.Spec.Strategy.Canary.DynamicStableScale:
		return "dynamicStableScale: stable shrinks as the canary grows"
	case ro.HPAAccountingSurge():
		return fmt.Sprintf("the stable ReplicaSet stays at %d beside the canary (%s: %s)", tr.Replicas, rampv1.HPAAccountingAnnotation, rampv1.HPAAccountingSurge)
	}
	return fmt.Sprintf("the stable ReplicaSet stays at %d beside the canary (no dynamicStableScale);\n"+
		"  with an HPA (--hpa), canary pods are taken from stable", tr.Replicas)
}
