package experiment

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/podtemplate"
)

// Validate reports the first problem in an Experiment's spec that keeps it
// from running, naming the field ("" if none); a pod template is checked as
// the API server checks a ReplicaSet's (podtemplate.Validate). Whether the
// analysis templates exist is for the controller, which can read them.
func Validate(ex *rampv1.Experiment) string {
	s := ex.Spec
	if len(s.Templates) == 0 {
		return "spec.templates: at least one template is required"
	}
	names := make([]string, len(s.Templates))
	for i, t := range s.Templates {
		names[i] = t.Name
	}
	if msg := CheckNames("spec.templates", "template", names); msg != "" {
		return msg
	}
	for _, f := range []struct {
		field string
		v     *int32
	}{{"spec.progressDeadlineSeconds", s.ProgressDeadlineSeconds}, {"spec.scaleDownDelaySeconds", s.ScaleDownDelaySeconds}} {
		if f.v != nil && *f.v < 0 {
			return fmt.Sprintf("%s: %d must not be negative", f.field, *f.v)
		}
	}
	for i, t := range s.Templates {
		path := fmt.Sprintf("spec.templates[%d]", i)
		if t.Replicas != nil && *t.Replicas < 0 {
			return fmt.Sprintf("%s.replicas: %d must not be negative", path, *t.Replicas)
		}
		if t.MinReadySeconds < 0 {
			return fmt.Sprintf("%s.minReadySeconds: %d must not be negative", path, t.MinReadySeconds)
		}
		sel, err := metav1.LabelSelectorAsSelector(t.Selector)
		switch {
		case err != nil:
			return path + ".selector: " + err.Error()
		case t.Selector == nil || sel.Empty():
			return path + ".selector: required, and must not select every pod"
		case !sel.Matches(labels.Set(t.Template.Labels)):
			return fmt.Sprintf("%s.selector %q does not match %s.template.metadata.labels", path, sel.String(), path)
		}
		replicas := int32(1)
		if t.Replicas != nil {
			replicas = *t.Replicas
		}
		tpath := field.NewPath("spec", "templates").Index(i).Child("template")
		if errs := podtemplate.Validate(&t.Template, t.Selector, replicas, tpath); len(errs) > 0 {
			return errs[0].Error()
		}
	}
	refs := make([]AnalysisRef, len(s.Analyses))
	for i, a := range s.Analyses {
		refs[i] = AnalysisRef{Name: a.Name, TemplateName: a.TemplateName}
	}
	return CheckRest("spec", s.Duration, refs)
}

// AnalysisRef is what the checks need of an analysis reference (of an
// Experiment or of a Rollout's experiment step).
type AnalysisRef struct{ Name, TemplateName string }

// CheckNames reports a missing or repeated name among the items at path
// (e.g. spec.templates), what being the item's kind.
func CheckNames(path, what string, names []string) string {
	seen := map[string]bool{}
	for i, n := range names {
		switch {
		case n == "":
			return fmt.Sprintf("%s[%d].name: required", path, i)
		case seen[n]:
			return fmt.Sprintf("%s[%d].name: %q is used by another %s", path, i, n, what)
		}
		seen[n] = true
	}
	return ""
}

// CheckRest reports a bad duration or analysis reference under path (the
// Experiment's spec, or a Rollout's experiment step).
func CheckRest(path string, duration rampv1.DurationString, analyses []AnalysisRef) string {
	if duration != "" {
		if d, err := duration.Duration(); err != nil || d <= 0 {
			return fmt.Sprintf("%s.duration: %q is not a positive duration (e.g. 30s, 20m, 1h)", path, duration)
		}
	}
	names := make([]string, len(analyses))
	for i, a := range analyses {
		names[i] = a.Name
	}
	if msg := CheckNames(path+".analyses", "analysis", names); msg != "" {
		return msg
	}
	for i, a := range analyses {
		if a.TemplateName == "" {
			return fmt.Sprintf("%s.analyses[%d].templateName: required", path, i)
		}
	}
	return ""
}
