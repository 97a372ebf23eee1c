package experiment

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestTemplateWithoutLabels: a template without labels whose selector is
// matchExpressions [app DoesNotExist] (valid: it matches the empty label
// set) gets its ReplicaSet, labelled with the hash, and a status; before
// the fix createReplicaSet wrote into the template's nil label map and the
// pass panicked on every retry.
func TestTemplateWithoutLabels(t *testing.T) {
	ex := newExperiment()
	ex.Spec.Templates[0].Template.Labels = nil
	ex.Spec.Templates[0].Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "app", Operator: metav1.LabelSelectorOpDoesNotExist}}}
	env, r := newReconciler(t, ex)
	if _, err := pass(r); err != nil {
		t.Fatal(err)
	}
	rs := get(t, env, "exp-a", &appsv1.ReplicaSet{})
	if rs.Spec.Template.Labels[rampv1.DefaultRolloutUniqueLabelKey] == "" || rs.Spec.Selector.MatchLabels[rampv1.DefaultRolloutUniqueLabelKey] != rs.Spec.Template.Labels[rampv1.DefaultRolloutUniqueLabelKey] {
		t.Errorf("ReplicaSet labels %v, selector %v: want the hash on both", rs.Spec.Template.Labels, rs.Spec.Selector)
	}
	if got := get(t, env, "exp", &rampv1.Experiment{}); got.Status.Phase == "" {
		t.Error("no status written")
	}
}

// TestTemplateWithoutSelector: a template stored without a selector (the
// CRD requires one; an object written before it did) is InvalidSpec, in
// the status, and the pass neither panics nor creates anything.
func TestTemplateWithoutSelector(t *testing.T) {
	ex := newExperiment()
	ex.Spec.Templates[0].Selector = nil
	ex.Spec.Templates[0].Service = &rampv1.TemplateService{}
	env, r := newReconciler(t, ex)
	if _, err := pass(r); err != nil {
		t.Fatal(err)
	}
	got := get(t, env, "exp", &rampv1.Experiment{})
	if got.Status.Phase != rampv1.AnalysisPhaseError || got.Status.Message == "" {
		t.Errorf("status %s %q, want Error naming the selector", got.Status.Phase, got.Status.Message)
	}
	var list appsv1.ReplicaSetList
	if err := env.Client.List(t.Context(), &list); err != nil || len(list.Items) != 0 {
		t.Errorf("ReplicaSets %d (%v), want none", len(list.Items), err)
	}
}
