package plan

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/podtemplate"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// ValidateRollout reports everything in a Rollout's spec that this version of
// Ramp cannot run, in the order the controller checks it (the controller
// reports the first as the InvalidSpec condition). Each message starts with
// the field it names. It checks only the spec itself: whether the Services it
// names exist is for the controller, which can read them.
func ValidateRollout(ro *rampv1.Rollout) []string {
	var out []string
	if msg := ValidateTemplate(ro); msg != "" {
		out = append(out, msg)
	}
	return append(out, strategyProblems(ro)...)
}

// ValidateTemplate reports a pod template or selector that cannot run,
// naming the field ("" if none): the selector first, then the first problem
// the API server would find in the template of a ReplicaSet (podtemplate.
// Validate). The controller checks it before it reads anything else, since
// the pod-template hash depends on both.
func ValidateTemplate(ro *rampv1.Rollout) string {
	if ro.Spec.Template == nil {
		if ro.Spec.WorkloadRef != nil {
			return ValidateWorkloadRef(ro.Spec.WorkloadRef) // the controller checks the Deployment's template
		}
		return "spec.template: required"
	}
	sel, err := metav1.LabelSelectorAsSelector(ro.Spec.Selector)
	switch {
	case err != nil:
		return "spec.selector: " + err.Error()
	case sel.Empty():
		return "spec.selector: " + rampv1.RolloutMessageSelectAll
	case !sel.Matches(labels.Set(ro.Spec.Template.Labels)):
		return fmt.Sprintf("spec.selector %q does not match spec.template.metadata.labels", sel.String())
	}
	replicas := int32(1)
	if ro.Spec.Replicas != nil {
		replicas = *ro.Spec.Replicas
	}
	if errs := podtemplate.Validate(ro.Spec.Template, ro.Spec.Selector, replicas, field.NewPath("spec", "template")); len(errs) > 0 {
		return errs[0].Error() // "spec.template.spec.containers[0].name: Invalid value: ..."
	}
	return ""
}

// ValidateStrategy reports the first canary step or blue-green hook this
// version of Ramp cannot run, naming it ("" if none).
func ValidateStrategy(ro *rampv1.Rollout) string {
	return first(strategyProblems(ro))
}

// ValidateSupported reports a feature the spec asks for that this version
// of the controller cannot provide (a traffic router Ramp has no
// implementation of): the controller refuses to run such a rollout rather
// than run it without the routing it asked for. Lint reports these as
// warnings, as they are limits of this version, not mistakes in the manifest.
func ValidateSupported(ro *rampv1.Rollout) string {
	c := ro.Spec.Strategy.Canary
	if c == nil || c.TrafficRouting == nil {
		return ""
	}
	for _, name := range traffic.Configured(c.TrafficRouting) {
		if _, err := traffic.Lookup(name); err != nil {
			return fmt.Sprintf("spec.strategy.canary.trafficRouting.%s: this traffic router is not supported by this version of Ramp (supported: %s)",
				routerField(name), supportedRouters())
		}
	}
	return ""
}

// ValidateSteps reports the first canary step this controller cannot run,
// naming it ("" if none).
func ValidateSteps(ro *rampv1.Rollout) string {
	return first(stepProblems(ro))
}

// strategyProblems lists the spec's value rules, then routing and step
// problems, then analysis without a template.
func strategyProblems(ro *rampv1.Rollout) []string {
	out := specProblems(ro)
	if s := ro.Spec.Strategy; (s.Canary == nil) == (s.BlueGreen == nil) {
		return out // no single strategy to check further
	}
	out = append(out, routingProblems(ro.Spec.Strategy.Canary)...)
	out = append(out, stepProblems(ro)...)
	out = append(out, metadataProblems(ro)...)
	none := func(path string, a *rampv1.RolloutAnalysis) {
		if a != nil && len(a.Templates) == 0 {
			out = append(out, path+".templates: at least one template is required")
		}
	}
	if c := ro.Spec.Strategy.Canary; c != nil && c.Analysis != nil {
		none("spec.strategy.canary.analysis", &c.Analysis.RolloutAnalysis)
	}
	if b := ro.Spec.Strategy.BlueGreen; b != nil {
		none("spec.strategy.blueGreen.prePromotionAnalysis", b.PrePromotionAnalysis)
		none("spec.strategy.blueGreen.postPromotionAnalysis", b.PostPromotionAnalysis)
	}
	return out
}

// StepShapeProblem says what is wrong with the set of actions a canary step
// names ("" if nothing): upstream runs a step that sets at least one action
// and at most one of setWeight, pause, experiment and analysis.
func StepShapeProblem(s rampv1.CanaryStep) string {
	exclusive, any := 0, false
	for _, set := range []bool{s.SetWeight != nil, s.Pause != nil, s.Experiment != nil, s.Analysis != nil} {
		if set {
			exclusive++
			any = true
		}
	}
	any = any || s.SetCanaryScale != nil || s.SetHeaderRoute != nil || s.SetMirrorRoute != nil || s.Plugin != nil
	switch {
	case !any:
		return "sets no action: set one of setWeight, pause, setCanaryScale, experiment, analysis, setHeaderRoute, setMirrorRoute, plugin"
	case exclusive > 1:
		return "sets more than one of setWeight, pause, experiment and analysis: a step runs at most one of them"
	}
	return ""
}

// stepProblems lists one problem per canary step that cannot run.
func stepProblems(ro *rampv1.Rollout) []string {
	c := ro.Spec.Strategy.Canary
	if c == nil {
		return nil
	}
	var out []string
	for i, s := range c.Steps {
		path := fmt.Sprintf("spec.strategy.canary.steps[%d]", i)
		if msg := StepShapeProblem(s); msg != "" {
			out = append(out, path+": "+msg)
			continue
		}
		switch {
		case s.Pause != nil:
			if msg := pauseProblem(path, s.Pause.Duration); msg != "" {
				out = append(out, msg)
			}
		case s.SetHeaderRoute != nil || s.SetMirrorRoute != nil:
			if msg := managedRouteProblem(c, path, s); msg != "" {
				out = append(out, msg)
			}
		case s.Analysis != nil && len(s.Analysis.Templates) == 0:
			out = append(out, path+".analysis.templates: at least one template is required")
		case s.Experiment != nil:
			if msg := experimentStepProblem(path+".experiment", s.Experiment); msg != "" {
				out = append(out, msg)
			}
		case s.Plugin != nil:
			out = append(out, path+": plugin steps are not supported by this version of Ramp")
		}
	}
	return out
}

func first(msgs []string) string {
	if len(msgs) == 0 {
		return ""
	}
	return msgs[0]
}

// ValidateWorkloadRef reports a workloadRef this version cannot follow
// ("" if none): only an apps/v1 Deployment provides the pod template.
func ValidateWorkloadRef(ref *rampv1.ObjectRef) string {
	switch {
	case ref.Kind != "Deployment" || (ref.APIVersion != "" && ref.APIVersion != "apps/v1"):
		return fmt.Sprintf("spec.workloadRef: kind %q, apiVersion %q: is not supported by this version of Ramp (only an apps/v1 Deployment)", ref.Kind, ref.APIVersion)
	case ref.Name == "":
		return "spec.workloadRef.name: required"
	}
	switch ref.ScaleDown {
	case "", rampv1.ScaleDownNever, rampv1.ScaleDownOnSuccess, rampv1.ScaleDownProgressively:
		return ""
	}
	return fmt.Sprintf("spec.workloadRef.scaleDown: %q must be never, onsuccess or progressively", ref.ScaleDown)
}

// supportedRouters lists the registered routers (traffic.Names) as they are
// written in trafficRouting, e.g. "alb, istio, nginx, smi,
// plugins[\"argoproj-labs/gatewayAPI\"]".
func supportedRouters() string {
	var fields, plugins []string
	for _, name := range traffic.Names() {
		if f := routerField(name); strings.HasPrefix(f, "plugins[") {
			plugins = append(plugins, f)
		} else {
			fields = append(fields, f)
		}
	}
	slices.Sort(fields)
	slices.Sort(plugins)
	return strings.Join(append(fields, plugins...), ", ")
}
