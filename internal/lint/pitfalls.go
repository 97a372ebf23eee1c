package lint

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// hpaTrafficRouting warns about an HPA with a resource metric on a
// traffic-routed canary that keeps Argo Rollouts' accounting
// (rollout.ramp.dev/hpa-accounting: surge, no dynamicStableScale; seed 000):
// the stable ReplicaSet stays full beside the canary and the HPA counts both,
// while a resource's per-pod usage does not drop with the extra pods.
// Without the annotation Ramp takes the canary's pods from stable.
func (ix *index) hpaTrafficRouting(h hpaDoc) {
	ro := ix.targetRollout(h)
	if ro == nil || ro.Spec.Strategy.Canary == nil || !ro.HPAAccountingSurge() {
		return
	}
	c := ro.Spec.Strategy.Canary
	i := slices.IndexFunc(h.metrics, ResourceMetric)
	if c.TrafficRouting == nil || c.DynamicStableScale || i < 0 {
		return
	}
	field := h.path
	if field == "spec.metrics" {
		field = indexed(field, i)
	}
	ix.add(h.obj, Warning, field, fmt.Sprintf("Rollout %q sets %s: %s with trafficRouting and no dynamicStableScale: "+
		"its stable ReplicaSet stays full beside the canary and this HPA counts both, while a resource's per-pod usage does "+
		"not drop with the extra pods, so it scales up with no change in load (seed 000: 4 stable + 4 canary at 28%%/54%% "+
		"memory -> ceil(8 x 28/54) = 5); remove the annotation: Ramp then takes the canary's pods from stable "+
		"(see `ramp plan --hpa`)", ro.Name, rampv1.HPAAccountingAnnotation, rampv1.HPAAccountingSurge))
}

// hpaResourceRequests warns about a Utilization metric for a resource some
// of the Rollout's containers do not request (seed 002): utilization is a
// percentage of the requests, so the HPA cannot compute it and does nothing.
func (ix *index) hpaResourceRequests(h hpaDoc) {
	ro := ix.targetRollout(h)
	if ro == nil || ro.Spec.Template == nil {
		return
	}
	for i, m := range h.metrics {
		res, only, ok := utilizationMetric(m)
		if !ok {
			continue
		}
		var missing []string
		for j, c := range ro.Spec.Template.Spec.Containers {
			if (only == "" || c.Name == only) && !requests(c, res) {
				missing = append(missing, fmt.Sprintf("%q (spec.template.spec.containers[%d])", c.Name, j))
			}
		}
		if len(missing) == 0 {
			continue
		}
		field := h.path
		if field == "spec.metrics" {
			field = indexed(field, i)
		}
		ix.add(h.obj, Warning, field, fmt.Sprintf("%s Utilization is a percentage of the pods' %s requests, and Rollout %q has "+
			"no %s request on container %s: the HPA cannot compute it and does nothing (seed 002); set resources.requests.%s",
			res, res, ro.Name, res, strings.Join(missing, ", "), res))
	}
}

// requests reports whether a container requests res (a limit alone counts:
// the API server defaults the request to it).
func requests(c corev1.Container, res corev1.ResourceName) bool {
	_, req := c.Resources.Requests[res]
	_, lim := c.Resources.Limits[res]
	return req || lim
}

// blueGreenPostPromotion warns about postPromotionAnalysis with manual
// promotion (seed 003): the analysis only runs after a promotion, so it
// cannot be what promotes.
func (ix *index) blueGreenPostPromotion(r rolloutDoc) {
	b := r.ro.Spec.Strategy.BlueGreen
	if b == nil || b.PostPromotionAnalysis == nil || b.AutoPromotionEnabled == nil || *b.AutoPromotionEnabled {
		return
	}
	ix.add(r.obj, Warning, "spec.strategy.blueGreen.autoPromotionEnabled", "false with postPromotionAnalysis: nothing promotes "+
		"automatically, and the analysis runs only after a promotion, so the Rollout waits for a manual promote (seed 003); "+
		"set autoPromotionEnabled: true, or use prePromotionAnalysis to gate the promotion")
}

// promoteCommand matches the CLIs' promote verbs in a shell command line.
var promoteCommand = regexp.MustCompile(`(kubectl-argo-rollouts|kubectl\s+argo\s+rollouts|\bramp)\s+promote\b`)

// hookPromotes warns about an Argo CD Sync or PostSync hook that promotes a
// Rollout (seed 003).
func (ix *index) hookPromotes(h hookDoc) {
	var why string
	switch {
	case slices.Contains(h.phases, "PostSync"):
		why = "Argo CD runs PostSync hooks only once every resource is Healthy, and a paused Rollout is not Healthy, so this promote never runs"
	case slices.Contains(h.phases, "Sync"):
		why = "a Sync hook runs while the new version is still coming up, so this promotes a version nothing has verified"
	default:
		return
	}
	for i, c := range h.containers {
		if promoteCommand.MatchString(strings.Join(append(slices.Clone(c.Command), c.Args...), " ")) {
			ix.add(h.obj, Warning, indexed(h.path, i), fmt.Sprintf("promotes a Rollout from an Argo CD %s hook: %s (seed 003); "+
				"gate the update with an analysis step (blue-green: prePromotionAnalysis) instead of promoting from a hook",
				strings.Join(h.phases, ","), why))
		}
	}
}

// canaryStalls warns about a traffic-routed canary step the controller can
// never complete: the controller's planner, run in plan.Simulate (an HPA
// among the linted objects targeting the Rollout counts), stops at it with
// nothing left to wait for. While canary pods come from stable (that HPA,
// or dynamicStableScale) a weight is sent only as far as the canary's
// available pods carry it, so, e.g., a setCanaryScale with fewer pods than
// a later setWeight needs holds the weight below it (`ramp plan` shows
// "stalls here"). Argo Rollouts sends the weight regardless.
func (ix *index) canaryStalls(r rolloutDoc) {
	c := r.ro.Spec.Strategy.Canary
	if c == nil || c.TrafficRouting == nil {
		return
	}
	hpa := slices.ContainsFunc(ix.hpas, func(h hpaDoc) bool { return ix.targetRollout(h) == r.ro })
	tr, err := plan.Simulate(r.ro, plan.SimOptions{HPA: hpa})
	if err != nil || !tr.Stalled || len(tr.Points) == 0 {
		return // an invalid Rollout is rolloutErrors' to report
	}
	last := tr.Points[len(tr.Points)-1]
	if last.Index >= len(c.Steps) {
		return
	}
	why := "dynamicStableScale"
	if tr.TakesFromStable {
		why = "an HPA targets it"
	}
	carry := fmt.Sprintf("the %d canary pod(s) it has hold the weight at %d instead of %d", last.New.Spec, last.Traffic, last.Weight)
	fix := "give the canary the pods the weight needs"
	for i := last.Index - 1; i >= 0; i-- {
		if c.Steps[i].SetCanaryScale != nil {
			carry = fmt.Sprintf("the %d canary pod(s) the setCanaryScale of step %d leaves hold the weight at %d instead of %d",
				last.New.Spec, i, last.Traffic, last.Weight)
			fix = "give setCanaryScale at least the pods the weight needs, or matchTrafficWeight: true"
			break
		}
	}
	ix.add(r.obj, Warning, fmt.Sprintf("spec.strategy.canary.steps[%d]", last.Index), fmt.Sprintf("%s: this step never completes "+
		"at %d replicas: canary pods come from stable (%s), and a weight is sent only as far as the canary's pods carry it; "+
		"%s (see `ramp plan`); %s", last.Step, tr.Replicas, why, carry, fix))
}
