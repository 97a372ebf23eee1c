package experiment

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Validate reports the first problem in an Experiment's spec that keeps it
// from running, naming the field ("" if none). Whether the analysis
// templates exist is for the controller, which can read them.
func Validate(ex *rampv1.Experiment) string {
	s := ex.Spec
	if len(s.Templates) == 0 {
		return "spec.templates: at least one template is required"
	}
	seen := map[string]bool{}
	for i, t := range s.Templates {
		path := fmt.Sprintf("spec.templates[%d]", i)
		if t.Name == "" {
			return path + ".name: required"
		}
		if seen[t.Name] {
			return fmt.Sprintf("%s.name: %q is used by another template", path, t.Name)
		}
		seen[t.Name] = true
		if t.Service != nil {
			return path + ".service: creating a Service for a template is not supported by this version of Ramp"
		}
		if t.Replicas != nil && *t.Replicas < 0 {
			return fmt.Sprintf("%s.replicas: %d must not be negative", path, *t.Replicas)
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
	}
	if s.Duration != "" {
		if d, err := s.Duration.Duration(); err != nil || d <= 0 {
			return fmt.Sprintf("spec.duration: %q is not a positive duration (e.g. 30s, 20m, 1h)", s.Duration)
		}
	}
	names := map[string]bool{}
	for i, a := range s.Analyses {
		path := fmt.Sprintf("spec.analyses[%d]", i)
		switch {
		case a.Name == "":
			return path + ".name: required"
		case names[a.Name]:
			return fmt.Sprintf("%s.name: %q is used by another analysis", path, a.Name)
		case a.TemplateName == "":
			return path + ".templateName: required"
		}
		names[a.Name] = true
	}
	return ""
}
