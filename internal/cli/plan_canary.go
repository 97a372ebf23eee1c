package cli

import (
	"fmt"
	"io"
	"strings"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// printCanaryPlan writes the plan of a canary Rollout.
func printCanaryPlan(w io.Writer, ro *rampv1.Rollout, fc plan.CanaryForecast, hpa bool) error {
	p := &printer{w: w}
	c, n := ro.Spec.Strategy.Canary, fc.Replicas
	if fc.Routed {
		p.printf("Rollout %s (canary): %d replicas, trafficRouting (%s)\n", ro.Name, n, planRouters(c.TrafficRouting))
		p.println("traffic: the routers send the canary each step's weight once its pods are available")
		p.println("pods: " + routedPods(ro, fc))
	} else {
		p.printf("Rollout %s (canary): %d replicas, maxSurge %d, maxUnavailable %d\n", ro.Name, n, fc.Surge, fc.Unavailable)
		p.println("traffic: follows the pods (no trafficRouting)")
	}
	if len(fc.Background) > 0 {
		p.printf("background analysis: %s from step %d until the update completes; Failed or Error aborts it, Inconclusive pauses it\n",
			strings.Join(fc.Background, ", "), fc.BackgroundFrom)
	}
	p.printf("The first deploy skips the steps. An update, from %d stable pods:\n\n", n)

	t, tw := p.table()
	head := "STEP\tACTION\tWEIGHT\tACTUAL\tCANARY\tSTABLE"
	if hpa {
		head += "\tHPA\tUPSTREAM"
	}
	t.println(head + "\tPEAK\tGATE")
	rounded := false
	for _, s := range fc.Steps {
		idx := fmt.Sprint(s.Index)
		if s.Step == "complete" {
			idx = "-"
		}
		pods := max(s.Canary+s.Stable, 1) // the pods that share the traffic
		actual := fmt.Sprintf("%d%%", (int64(s.Canary)*1000/int64(pods)+5)/10)
		if fc.Routed {
			actual = fmt.Sprintf("%d%%", (int64(s.Traffic)*1000/int64(fc.MaxWeight)+5)/10)
		} else if int64(s.Canary)*100 != int64(s.Weight)*int64(pods) {
			actual += "*"
			rounded = true
		}
		row := fmt.Sprintf("%s\t%s\t%s\t%s\t%d\t%d", idx, s.Step, planWeight(s.Weight, fc.MaxWeight), actual, s.Canary, s.Stable)
		if hpa {
			row += fmt.Sprintf("\t%d\t%d", s.Canary+s.Stable, s.Upstream)
		}
		peak := "-"
		if s.Peak > 0 {
			peak = fmt.Sprint(s.Peak)
		}
		t.printf("%s\t%s\t%s\n", row, peak, canaryGate(fc, s))
	}
	p.endTable(t, tw)

	p.println()
	if rounded {
		p.println("* pods are whole: ACTUAL is the canary's share of canary + stable, the split closest to WEIGHT;")
		p.println("  with maxSurge it may use replicas + 1 pods (10% of 5 replicas: 1 canary + 5 stable = 17%)")
	}
	for _, line := range canaryFooter(ro, fc, hpa) {
		p.println(line)
	}
	return p.err
}

// routedPods says how a traffic-routed canary's pods are counted.
func routedPods(ro *rampv1.Rollout, fc plan.CanaryForecast) string {
	switch {
	case fc.FromStable:
		return fmt.Sprintf("an HPA targets this Rollout, so canary pods are taken from stable (stable keeps minPodsPerReplicaSet %d)", fc.MinPods)
	case fc.Dynamic:
		return "dynamicStableScale: stable shrinks as the canary grows"
	case ro.HPAAccountingSurge():
		return fmt.Sprintf("the stable ReplicaSet stays at %d beside the canary (%s: %s)", fc.Replicas, rampv1.HPAAccountingAnnotation, rampv1.HPAAccountingSurge)
	}
	return fmt.Sprintf("the stable ReplicaSet stays at %d beside the canary (no dynamicStableScale);\n"+
		"  with an HPA (--hpa), canary pods are taken from stable", fc.Replicas)
}

// canaryFooter explains the columns.
func canaryFooter(ro *rampv1.Rollout, fc plan.CanaryForecast, hpa bool) []string {
	n, ann := fc.Replicas, rampv1.HPAAccountingAnnotation+": "+rampv1.HPAAccountingSurge
	out := []string{"ACTUAL: the weight the routers send the canary once the step settles"}
	switch {
	case !fc.Routed:
		out = []string{fmt.Sprintf("PEAK: most pods at once while moving into the step, never above %d + maxSurge %d", n, fc.Surge)}
	case fc.Dynamic:
		out = append(out, fmt.Sprintf("PEAK: most pods at once while moving into the step: the canary grows within %d + 1 pods while stable shrinks", n))
	default:
		out = append(out, fmt.Sprintf("PEAK: most pods at once while moving into the step: the canary grows beside a full stable, up to canary + %d", n))
	}
	if !hpa {
		return out
	}
	out = append(out, "HPA: pods the HPA counts once the step settles (up to PEAK while moving):")
	switch {
	case !fc.Routed:
		settle := fmt.Sprintf("  without trafficRouting canary + stable settle at %d", n)
		for _, s := range fc.Steps {
			if s.Canary+s.Stable > n {
				settle += fmt.Sprintf(", or %d where one more pod brings a step closer to its weight (maxSurge)", n+1)
				break
			}
		}
		return append(out, settle, "UPSTREAM: what Argo Rollouts' HPA counts: the same without trafficRouting")
	case fc.FromStable:
		out = append(out, fmt.Sprintf("  with an HPA, canary pods are taken from stable: canary + stable stay at %d (stable keeps minPodsPerReplicaSet);", n),
			fmt.Sprintf("  %s opts out (%s)", ann, optOut(ro, n)))
	case fc.Dynamic:
		out = append(out, "  dynamicStableScale takes the canary's pods from stable; "+ann+" keeps no minPodsPerReplicaSet floor")
	default:
		out = append(out, fmt.Sprintf("  %s keeps stable at %d beside the canary, as Argo Rollouts does; remove it and", ann, n),
			fmt.Sprintf("  canary pods are taken from stable: canary + stable stay at %d (stable keeps minPodsPerReplicaSet)", n))
	}
	if ro.Spec.Strategy.Canary.DynamicStableScale {
		return append(out, "UPSTREAM: what Argo Rollouts' HPA counts: with dynamicStableScale its stable shrinks as the canary grows")
	}
	return append(out, fmt.Sprintf("UPSTREAM: what Argo Rollouts' HPA counts: its stable stays at %d beside the canary (no dynamicStableScale);\n"+
		"  e.g. 4 stable + 4 canary at 28%%/54%% memory -> ceil(8 x 28/54) = 5: a scale-up with no change in load", n))
}

// optOut is what the surge annotation gives a routed canary instead.
func optOut(ro *rampv1.Rollout, n int32) string {
	if ro.Spec.Strategy.Canary.DynamicStableScale {
		return "dynamicStableScale alone shrinks stable, without that floor"
	}
	return fmt.Sprintf("stable stays at %d beside the canary", n)
}

// canaryGate is what holds a step besides its pods.
func canaryGate(fc plan.CanaryForecast, s plan.ForecastStep) string {
	var parts []string
	switch {
	case s.Stalled:
		parts = append(parts, "stalls here: the controller cannot reach this step's canary pods and weight together")
	case s.Step == "complete" && fc.Routed && s.Delay > 0:
		parts = append(parts, "the new ReplicaSet becomes stable; the previous one goes to 0 after "+planDuration(s.Delay)+" (scaleDownDelaySeconds)")
	case s.Step == "complete" && fc.Routed:
		parts = append(parts, "the previous ReplicaSet goes to 0 as the stable Service leaves it; the new one becomes stable")
	case s.Step == "complete":
		parts = append(parts, "the new ReplicaSet becomes stable")
	}
	if g := gateText(s.Gate); g != "" {
		parts = append(parts, g)
	}
	if len(fc.Background) > 0 && int32(s.Index) == fc.BackgroundFrom && s.Step != "complete" {
		parts = append(parts, "background analysis starts")
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "; ")
}
