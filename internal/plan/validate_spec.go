package plan

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/intstr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// specProblems lists the value rules of a Rollout's spec that upstream's
// CRD schema does not enforce, so admission takes them and the controller
// reports them (as upstream's controller does most of them): counts that
// must not be negative, one strategy, the Services a strategy names, weights
// and percentages in range, and fields that exclude each other. Each message
// starts with the field it names.
func specProblems(ro *rampv1.Rollout) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	nonNegative := func(field string, v *int32) {
		if v != nil && *v < 0 {
			add("%s: %d must not be negative", field, *v)
		}
	}
	nonNegative("spec.replicas", ro.Spec.Replicas)
	nonNegative("spec.minReadySeconds", &ro.Spec.MinReadySeconds)
	nonNegative("spec.revisionHistoryLimit", ro.Spec.RevisionHistoryLimit)
	nonNegative("spec.progressDeadlineSeconds", ro.Spec.ProgressDeadlineSeconds)
	if w := ro.Spec.RollbackWindow; w != nil {
		nonNegative("spec.rollbackWindow.revisions", &w.Revisions)
	}
	s := ro.Spec.Strategy
	if (s.Canary == nil) == (s.BlueGreen == nil) {
		add("spec.strategy: exactly one of canary or blueGreen must be set")
		return out
	}
	if b := s.BlueGreen; b != nil {
		const p = "spec.strategy.blueGreen."
		switch {
		case b.ActiveService == "":
			add(p + "activeService: required")
		case b.PreviewService == b.ActiveService:
			add(p+"previewService: must differ from spec.strategy.blueGreen.activeService (both %q)", b.ActiveService)
		}
		nonNegative(p+"previewReplicaCount", b.PreviewReplicaCount)
		out = append(out, antiAffinityProblems(p+"antiAffinity", b.AntiAffinity)...)
		return out
	}
	return append(out, canarySpecProblems(s.Canary)...)
}

// maxSteps bounds spec.strategy.canary.steps: the step index and the
// step-hash input stay small, whatever the stored object holds.
const maxSteps = 1000

func canarySpecProblems(c *rampv1.CanaryStrategy) []string {
	const p = "spec.strategy.canary."
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	nonNegative := func(field string, v *int32) {
		if v != nil && *v < 0 {
			add("%s: %d must not be negative", field, *v)
		}
	}
	if c.CanaryService != "" && c.CanaryService == c.StableService {
		add(p+"stableService: must name a different Service than spec.strategy.canary.canaryService (both %q)", c.CanaryService)
	}
	if isZeroBudget(c.MaxSurge) && isZeroBudget(c.MaxUnavailable) {
		add("spec.strategy.canary: maxSurge and maxUnavailable cannot both be 0")
	} else if _, _, err := Budget(100, c.MaxSurge, c.MaxUnavailable); err != nil {
		add(p+"%s", err.Error())
	}
	if len(c.Steps) > maxSteps {
		add(p+"steps: %d steps: at most %d are supported", len(c.Steps), maxSteps)
	}
	maxW := c.MaxTrafficWeight()
	inRange := func(field string, v *int32, hi int32, what string) {
		if v != nil && (*v < 0 || *v > hi) {
			add("%s: %d must be between 0 and %d%s", field, *v, hi, what)
		}
	}
	const weightBound = " (trafficRouting.maxTrafficWeight, 100 when unset)"
	for i, st := range c.Steps {
		sp := fmt.Sprintf("%ssteps[%d]", p, i)
		inRange(sp+".setWeight", st.SetWeight, maxW, weightBound)
		if sc := st.SetCanaryScale; sc != nil {
			inRange(sp+".setCanaryScale.weight", sc.Weight, maxW, weightBound)
			nonNegative(sp+".setCanaryScale.replicas", sc.Replicas)
		}
		if m := st.SetMirrorRoute; m != nil {
			inRange(sp+".setMirrorRoute.percentage", m.Percentage, 100, "")
		}
	}
	nonNegative(p+"minPodsPerReplicaSet", c.MinPodsPerReplicaSet)
	if a := c.Analysis; a != nil {
		nonNegative(p+"analysis.startingStep", a.StartingStep)
	}
	out = append(out, antiAffinityProblems(p+"antiAffinity", c.AntiAffinity)...)
	if tr := c.TrafficRouting; tr != nil {
		if is := tr.Istio; is != nil && is.VirtualService != nil && len(is.VirtualServices) > 0 {
			add(p + "trafficRouting.istio: set virtualService or virtualServices, not both")
		}
		if ng := tr.Nginx; ng != nil && ng.StableIngress != "" && len(ng.StableIngresses) > 0 {
			add(p + "trafficRouting.nginx: set stableIngress or stableIngresses, not both")
		}
	}
	return out
}

// isZeroBudget says whether a maxSurge or maxUnavailable is 0 (or "0%").
func isZeroBudget(v *intstr.IntOrString) bool {
	return v != nil && ((v.Type == intstr.Int && v.IntVal == 0) || (v.Type == intstr.String && v.StrVal == "0%"))
}

// antiAffinityProblems checks an antiAffinity block as upstream does: exactly
// one kind, and a preferred weight of 1..100.
func antiAffinityProblems(field string, a *rampv1.AntiAffinity) []string {
	if a == nil {
		return nil
	}
	var out []string
	pref, req := a.PreferredDuringSchedulingIgnoredDuringExecution, a.RequiredDuringSchedulingIgnoredDuringExecution
	if (pref == nil) == (req == nil) {
		out = append(out, field+": set exactly one of requiredDuringSchedulingIgnoredDuringExecution or preferredDuringSchedulingIgnoredDuringExecution")
	}
	if pref != nil && (pref.Weight < 1 || pref.Weight > 100) {
		out = append(out, fmt.Sprintf("%s.preferredDuringSchedulingIgnoredDuringExecution.weight: %d must be between 1 and 100", field, pref.Weight))
	}
	return out
}

// pauseProblem reports a pause duration that cannot be waited: one that
// does not parse, or is negative ("" if none).
func pauseProblem(path string, d *intstr.IntOrString) string {
	v, err := PauseDuration(d)
	switch {
	case err != nil:
		return path + "." + err.Error()
	case v != nil && *v < 0:
		return fmt.Sprintf("%s.pause.duration %q: must not be negative", path, d.String())
	}
	return ""
}
