package analysisrun

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
)

// TestStatusPatchOfDeletedRun: a status write that finds the run gone (its
// Rollout deleted it, the namespace went) ends the pass without an error
// and forgets the run's finish times, starting no measurement. Before the
// fix the NotFound was returned.
func TestStatusPatchOfDeletedRun(t *testing.T) {
	env, r := newReconciler(t, jobRun(t))
	env.FailAt(controllertest.Match{Verb: "patch", Kind: "AnalysisRun"}, 0,
		apierrors.NewNotFound(rampv1.GroupVersion.WithResource("analysisruns").GroupResource(), "run"))
	if _, err := pass(r); err != nil {
		t.Errorf("pass: %v, want no error for a run that is gone", err)
	}
	if env.Pending() {
		t.Fatal("the status patch was never made")
	}
	kept := 0
	r.finishes.m.Range(func(any, any) bool { kept++; return true })
	if kept != 0 {
		t.Errorf("%d finish times kept for a deleted run", kept)
	}
	for _, w := range env.Log() {
		if w.Kind == "Job" {
			t.Errorf("a measurement of the run found deleted went on to %v", w)
		}
	}
}

// TestInvalidRunOfDeletedRun: the Error status of a run whose provider is
// not registered, written after the run was deleted, is no error either.
func TestInvalidRunOfDeletedRun(t *testing.T) {
	run := jobRun(t)
	run.Spec.Metrics[0].Provider.Job, run.Spec.Metrics[0].Provider.Web = nil, &rampv1.WebMetric{URL: "http://x"}
	env, r := newReconciler(t, run)
	env.FailAt(controllertest.Match{Verb: "patch", Kind: "AnalysisRun"}, 0,
		apierrors.NewNotFound(rampv1.GroupVersion.WithResource("analysisruns").GroupResource(), "run"))
	if _, err := pass(r); err != nil {
		t.Errorf("pass: %v, want no error for a run that is gone", err)
	}
	if env.Pending() {
		t.Fatal("the status patch was never made")
	}
}
