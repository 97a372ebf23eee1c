package rollout

import (
	"context"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
)

// TestRolloutsByReportsListErrors: a watch's map function that cannot list
// the Rollouts to wake logs the error (an error log, naming the index)
// instead of dropping it silently; without an error it finds the Rollout.
func TestRolloutsByReportsListErrors(t *testing.T) {
	ro := &rampv1.Rollout{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
		Spec: rampv1.RolloutSpec{Strategy: rampv1.RolloutStrategy{Canary: &rampv1.CanaryStrategy{StableService: "stable"}}}}
	var idx []controllertest.Index
	for _, ix := range Indexes() {
		idx = append(idx, controllertest.Index(ix))
	}
	env := controllertest.New(t, idx, ro)
	r := &Reconciler{Client: env.Client}
	var logged []string
	ctx := log.IntoContext(context.Background(), funcr.New(func(prefix, args string) { logged = append(logged, args) }, funcr.Options{}))
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "stable"}}
	if reqs := r.rolloutsForService(ctx, svc); len(reqs) != 1 || reqs[0].Name != "web" {
		t.Fatalf("requests %v, want ns/web", reqs)
	}
	env.FailAt(controllertest.Match{Verb: "list", Kind: "Rollout"}, 0, controllertest.Errors()["timeout"])
	if reqs := r.rolloutsForService(ctx, svc); len(reqs) != 0 {
		t.Errorf("requests %v from a failed list", reqs)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], `"error"`) || !strings.Contains(logged[0], serviceIndex) {
		t.Errorf("logged %q, want one error naming the index", logged)
	}
}
