package rollout

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
)

// TestStatusPatchOfDeletedRollout: a status patch that finds the Rollout
// gone (deleted, its namespace torn down, between the read and the write)
// ends the pass without an error, and the writes this pass expected to see
// in the cache are forgotten. Before the fix the pass returned the
// NotFound (logged at ERROR with a stack trace) and kept the expectations.
func TestStatusPatchOfDeletedRollout(t *testing.T) {
	env, r, ro := internalEnv(t, 3)
	env.FailAt(controllertest.Match{Verb: "patch status", Kind: "Rollout"}, 0, apierrors.NewNotFound(rampv1.GroupVersion.WithResource("rollouts").GroupResource(), "web"))
	_, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(ro)})
	if err != nil {
		t.Errorf("pass: %v, want no error for a Rollout that is gone", err)
	}
	if env.Pending() {
		t.Fatal("the status patch was never made")
	}
	r.expect.mu.Lock()
	defer r.expect.mu.Unlock()
	if len(r.expect.created)+r.expect.Len() != 0 {
		t.Errorf("expectations kept for a deleted Rollout: created %v, %d writes", r.expect.created, r.expect.Len())
	}
}
