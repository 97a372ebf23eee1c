package cli

import (
	"fmt"
	"strings"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// canaryFooter explains the columns; the counts it quotes are the rows'.
func canaryFooter(ro *rampv1.Rollout, tr plan.Trajectory, hpa bool) []string {
	n, ann := tr.Replicas, rampv1.HPAAccountingAnnotation+": "+rampv1.HPAAccountingSurge
	var peak int32
	for _, p := range tr.Points {
		peak = max(peak, p.Peak)
	}
	var out []string
	switch {
	case !tr.Routed:
		out = append(out, fmt.Sprintf("PEAK: most pods at once while moving into the step, never above %d + maxSurge %d (%d here)", n, tr.Surge, peak))
	case tr.TakesFromStable || ro.Spec.Strategy.Canary.DynamicStableScale:
		out = append(out, "ACTUAL: the weight the routers send the canary once the step settles",
			fmt.Sprintf("PEAK: most pods at once while moving into the step: the canary grows while stable shrinks (%d here, replicas %d)", peak, n))
	default:
		out = append(out, "ACTUAL: the weight the routers send the canary once the step settles",
			fmt.Sprintf("PEAK: most pods at once while moving into the step: the canary grows beside a full stable (%d here, replicas %d)", peak, n))
	}
	if !hpa {
		return out
	}
	out = append(out, "HPA: pods the HPA counts once the step settles (up to PEAK while moving): "+hpaSpread(tr))
	switch {
	case !tr.Routed:
		return append(out, "  without trafficRouting canary + stable replace each other; one pod more where maxSurge brings a step closer to its weight",
			"UPSTREAM: what Argo Rollouts' HPA counts: the same without trafficRouting")
	case tr.TakesFromStable:
		out = append(out, "  canary pods are taken from stable, which keeps minPodsPerReplicaSet while it carries traffic;",
			fmt.Sprintf("  %s opts out (%s)", ann, optOut(ro, n)))
	case ro.Spec.Strategy.Canary.DynamicStableScale:
		out = append(out, "  dynamicStableScale takes the canary's pods from stable; "+ann+" keeps no minPodsPerReplicaSet floor")
	default:
		out = append(out, fmt.Sprintf("  %s keeps stable at %d beside the canary, as Argo Rollouts does; remove it and", ann, n),
			"  canary pods are taken from stable (stable keeps minPodsPerReplicaSet)")
	}
	if ro.Spec.Strategy.Canary.DynamicStableScale {
		return append(out, "UPSTREAM: what Argo Rollouts' HPA counts: with dynamicStableScale its stable shrinks as the canary grows")
	}
	return append(out, fmt.Sprintf("UPSTREAM: what Argo Rollouts' HPA counts: its stable stays at %d beside the canary (no dynamicStableScale);\n"+
		"  e.g. 4 stable + 4 canary at 28%%/54%% memory -> ceil(8 x 28/54) = 5: a scale-up with no change in load", n))
}

// hpaSpread says, from the rows, how many pods the HPA counts: "4 at every
// step", or "4, but 5 at step 6 to complete" (runs of equal counts).
func hpaSpread(tr plan.Trajectory) string {
	n := tr.Replicas
	type run struct {
		pods        int32
		first, last string
	}
	var runs []run
	prev := n
	for _, p := range tr.Points {
		where := p.Step
		if p.Kind == plan.PointStep && p.Step != plan.PointComplete {
			where = fmt.Sprintf("step %d", p.Index)
		}
		switch {
		case p.HPAPods == n:
		case p.HPAPods == prev && len(runs) > 0:
			runs[len(runs)-1].last = where
		default:
			runs = append(runs, run{p.HPAPods, where, where})
		}
		prev = p.HPAPods
	}
	if len(runs) == 0 {
		return fmt.Sprintf("%d at every step", n)
	}
	var parts []string
	for _, r := range runs {
		at := r.first
		if r.last != r.first {
			at += " to " + r.last
		}
		parts = append(parts, fmt.Sprintf("%d at %s", r.pods, at))
	}
	return fmt.Sprintf("%d, but %s", n, strings.Join(parts, ", "))
}

// optOut is what the surge annotation gives a routed canary instead.
func optOut(ro *rampv1.Rollout, n int32) string {
	if ro.Spec.Strategy.Canary.DynamicStableScale {
		return "dynamicStableScale alone shrinks stable, without that floor"
	}
	return fmt.Sprintf("stable stays at %d beside the canary", n)
}
