package experiment

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
)

// TestTemplateReadErrorIsRetried: an API error reading an analysis's
// template fails the pass (retried); the Experiment does not end in Error
// as if the template were invalid, and a pass without the error creates the
// template's ReplicaSet. Before the fix the Experiment ended in Error for good.
func TestTemplateReadErrorIsRetried(t *testing.T) {
	for name, apiErr := range controllertest.Errors() {
		t.Run(name, func(t *testing.T) {
			ex := newExperiment()
			ex.Spec.Analyses = []rampv1.ExperimentAnalysisTemplateRef{{Name: "web", TemplateName: "ok"}}
			tmpl := &rampv1.AnalysisTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ok"},
				Spec: rampv1.AnalysisTemplateSpec{Metrics: []rampv1.Metric{{Name: "m", Provider: rampv1.MetricProvider{Web: &rampv1.WebMetric{URL: "http://x"}}}}}}
			env, r := newReconciler(t, ex, tmpl)
			env.FailAt(controllertest.Match{Verb: "get", Kind: "AnalysisTemplate"}, 0, apiErr)
			if _, err := pass(r); err == nil {
				t.Error("pass: no error, want the read error")
			}
			if got := get(t, env, "exp", &rampv1.Experiment{}); got.Status.Phase.Completed() {
				t.Fatalf("Experiment ended %s (%q) on a read error", got.Status.Phase, got.Status.Message)
			}
			if _, err := pass(r); err != nil {
				t.Fatal(err)
			}
			get(t, env, "exp-a", &appsv1.ReplicaSet{})
			if got := get(t, env, "exp", &rampv1.Experiment{}); got.Status.Phase != rampv1.AnalysisPhasePending {
				t.Errorf("after the retry: phase %s (%q), want Pending", got.Status.Phase, got.Status.Message)
			}
		})
	}
}
