package experiment

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
)

// TestStatusPatchOfDeletedExperiment: a status write that finds the
// Experiment gone ends the pass without an error and forgets the runs it
// expected to see recorded. Before the fix the NotFound was returned.
func TestStatusPatchOfDeletedExperiment(t *testing.T) {
	ex := newExperiment()
	env, r := newReconciler(t, ex)
	r.created.Store(createdKey(ex, "web"), "exp-web")
	env.FailAt(controllertest.Match{Verb: "patch", Kind: "Experiment"}, 0,
		apierrors.NewNotFound(rampv1.GroupVersion.WithResource("experiments").GroupResource(), "exp"))
	if _, err := pass(r); err != nil {
		t.Errorf("pass: %v, want no error for an Experiment that is gone", err)
	}
	if env.Pending() {
		t.Fatal("the status patch was never made")
	}
	if _, ok := r.created.Load(createdKey(ex, "web")); ok {
		t.Error("the created run of a deleted Experiment is still expected")
	}
}
