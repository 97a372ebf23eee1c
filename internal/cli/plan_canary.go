package cli

import (
	"fmt"
	"io"
	"strings"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
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
		actual, star := canaryActual(tr, p)
		rounded = rounded || star
		row := fmt.Sprintf("%s\t%s\t%s\t%s\t%d\t%d", idx, p.Step, planWeight(p.Weight, tr.MaxWeight), actual, p.New.Spec, p.Old.Spec)
		if hpa {
			row += fmt.Sprintf("\t%d\t%s", p.HPAPods, upstreamPods(upstream, p))
		}
		t.printf("%s\t%s\t%s\n", row, planPeak(p.Peak), canaryGate(tr, p))
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

// canaryActual is the weight the canary gets once p settles: with
// trafficRouting what the routers hold (all of it once the new ReplicaSet
// is stable: the stable Service then selects it), otherwise its share of
// the pods, starred when that is not the step's weight.
func canaryActual(tr plan.Trajectory, p plan.Point) (string, bool) {
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

// canaryGate is what holds a point besides its pods, and what happens there.
func canaryGate(tr plan.Trajectory, p plan.Point) string {
	var parts []string
	switch {
	case p.Stalled:
		s := "stalls here: the controller never completes this step"
		if tr.Routed && p.Traffic != p.Weight {
			s += fmt.Sprintf(" (its %d available canary pod(s) carry %s, not %s)", p.New.Available,
				planWeight(p.Traffic, tr.MaxWeight), planWeight(p.Weight, tr.MaxWeight))
		}
		parts = append(parts, s)
	case p.Kind == plan.PointComplete && p.Delay > 0:
		parts = append(parts, "the new ReplicaSet becomes stable; the previous one stays "+planDuration(p.Delay)+" (scaleDownDelaySeconds)")
	case p.Kind == plan.PointComplete && tr.Routed && p.Old.Spec == 0:
		parts = append(parts, "the new ReplicaSet becomes stable; the previous one went to 0 as the stable Service left it")
	case p.Kind == plan.PointComplete:
		parts = append(parts, "the new ReplicaSet becomes stable")
	case p.Kind == plan.PointScaledDown:
		parts = append(parts, "the previous ReplicaSet goes to 0")
	}
	if !p.Stalled {
		if g := gateText(p.Gate); g != "" {
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
