package lint

import (
	"fmt"
	"regexp"

	"k8s.io/apimachinery/pkg/util/intstr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// problem is one field and what is wrong with it.
type problem struct{ field, msg string }

// schemaProblems is what the Rollout CRD's OpenAPI schema and CEL rules
// (api/v1alpha1 markers) reject at admission, plus the maxSurge and
// maxUnavailable values the controller cannot resolve. Unknown fields and
// wrong types are found while decoding.
func schemaProblems(ro *rampv1.Rollout) []problem {
	var out []problem
	add := func(field, format string, args ...any) {
		out = append(out, problem{field, fmt.Sprintf(format, args...)})
	}
	s := ro.Spec.Strategy
	if (s.Canary == nil) == (s.BlueGreen == nil) {
		add("spec.strategy", "exactly one of canary or blueGreen must be set")
	}
	if c := s.Canary; c != nil {
		canaryProblems(c, add)
	}
	if b := s.BlueGreen; b != nil {
		const p = "spec.strategy.blueGreen."
		if b.ActiveService == "" {
			add(p+"activeService", "Required value")
		} else if b.PreviewService == b.ActiveService {
			add(p+"previewService", "must differ from spec.strategy.blueGreen.activeService (both %q)", b.ActiveService)
		}
		nonNegative(add, p+"previewReplicaCount", b.PreviewReplicaCount)
		antiAffinity(add, p+"antiAffinity", b.AntiAffinity)
	}
	return out
}

type addFunc func(field, format string, args ...any)

func canaryProblems(c *rampv1.CanaryStrategy, add addFunc) {
	const p = "spec.strategy.canary."
	if c.CanaryService != "" && c.CanaryService == c.StableService {
		add(p+"stableService", "must name a different Service than spec.strategy.canary.canaryService (both %q)", c.CanaryService)
	}
	if isZero(c.MaxSurge) && isZero(c.MaxUnavailable) {
		add("spec.strategy.canary", "maxSurge and maxUnavailable cannot both be 0")
	} else if _, _, err := plan.Budget(100, c.MaxSurge, c.MaxUnavailable); err != nil {
		field, rest := splitField(err.Error())
		add(p+field, "%s (the controller would report InvalidSpec)", rest)
	}
	if len(c.Steps) > 1000 {
		add(p+"steps", "Too many: %d: must have at most 1000 items", len(c.Steps))
	}
	maxW := c.MaxTrafficWeight()
	for i, st := range c.Steps {
		sp := fmt.Sprintf("%ssteps[%d]", p, i)
		if msg := plan.StepShapeProblem(st); msg != "" {
			add(sp, "%s (the controller would report InvalidSpec)", msg)
		}
		if w := st.SetWeight; w != nil && (*w < 0 || *w > maxW) {
			add(sp+".setWeight", "%d must be between 0 and %d (trafficRouting.maxTrafficWeight, 100 when unset)", *w, maxW)
		}
		if sc := st.SetCanaryScale; sc != nil {
			if w := sc.Weight; w != nil && (*w < 0 || *w > maxW) {
				add(sp+".setCanaryScale.weight", "%d must be between 0 and %d (trafficRouting.maxTrafficWeight, 100 when unset)", *w, maxW)
			}
			nonNegative(add, sp+".setCanaryScale.replicas", sc.Replicas)
		}
		if m := st.SetMirrorRoute; m != nil && m.Percentage != nil && (*m.Percentage < 0 || *m.Percentage > 100) {
			add(sp+".setMirrorRoute.percentage", "%d must be between 0 and 100", *m.Percentage)
		}
		if ps := st.Pause; ps != nil && ps.Duration != nil && !validDuration(*ps.Duration) {
			add(sp+".pause.duration", "%s: pause.duration must be an integer number of seconds or a duration string such as 30s or 1h", ps.Duration.String())
		}
	}
	nonNegative(add, p+"minPodsPerReplicaSet", c.MinPodsPerReplicaSet)
	if a := c.Analysis; a != nil {
		nonNegative(add, p+"analysis.startingStep", a.StartingStep)
	}
	antiAffinity(add, p+"antiAffinity", c.AntiAffinity)
	if tr := c.TrafficRouting; tr != nil {
		if is := tr.Istio; is != nil && is.VirtualService != nil && len(is.VirtualServices) > 0 {
			add(p+"trafficRouting.istio", "set virtualService or virtualServices, not both")
		}
		if ng := tr.Nginx; ng != nil && ng.StableIngress != "" && len(ng.StableIngresses) > 0 {
			add(p+"trafficRouting.nginx", "set stableIngress or stableIngresses, not both")
		}
	}
}

// durationPattern is the CEL rule's pattern for a string pause.duration.
var durationPattern = regexp.MustCompile(`^([0-9]+([.][0-9]+)?(ns|us|µs|ms|s|m|h))+$|^[0-9]+$`)

func validDuration(d intstr.IntOrString) bool {
	if d.Type == intstr.Int {
		return d.IntVal >= 0
	}
	return len(d.StrVal) <= 64 && durationPattern.MatchString(d.StrVal)
}

// isZero is the CEL rule's test for a maxSurge or maxUnavailable of 0.
func isZero(v *intstr.IntOrString) bool {
	return v != nil && ((v.Type == intstr.Int && v.IntVal == 0) || (v.Type == intstr.String && v.StrVal == "0%"))
}

func nonNegative(add addFunc, field string, v *int32) {
	if v != nil && *v < 0 {
		add(field, "%d: should be greater than or equal to 0", *v)
	}
}

func antiAffinity(add addFunc, field string, a *rampv1.AntiAffinity) {
	if a == nil {
		return
	}
	if a.PreferredDuringSchedulingIgnoredDuringExecution != nil && a.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		add(field, "set only one of requiredDuringSchedulingIgnoredDuringExecution or preferredDuringSchedulingIgnoredDuringExecution")
	}
	if p := a.PreferredDuringSchedulingIgnoredDuringExecution; p != nil && (p.Weight < 1 || p.Weight > 100) {
		add(field+".preferredDuringSchedulingIgnoredDuringExecution.weight", "%d must be between 1 and 100", p.Weight)
	}
}
