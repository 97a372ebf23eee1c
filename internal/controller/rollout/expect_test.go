package rollout

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
)

// TestExpectations: a created ReplicaSet is pending until the cache lists
// it, or expectationTTL passed (cachelag tests the writes).
func TestExpectations(t *testing.T) {
	var e expectations
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	seen := false
	e.createdRS("ro", "web-abc", t0)
	if !e.pendingCreate("ro", func(string) bool { return seen }, t0) {
		t.Error("created ReplicaSet missing from the cache is not pending")
	}
	seen = true
	if e.pendingCreate("ro", func(n string) bool { return seen && n == "web-abc" }, t0) {
		t.Error("created ReplicaSet in the cache is still pending")
	}
	e.createdRS("ro", "web-def", t0)
	if e.pendingCreate("ro", func(string) bool { return false }, t0.Add(expectationTTL)) {
		t.Error("pending creation must expire")
	}
}

// TestExpectationWaitEndsOnEvent: while the cache holds the Rollout at the
// version a write of ours was made from, passes wait, also past the old 5 s
// poll, asking only for a safety-net requeue; the watch event that shows a
// newer version (any write, here a status update) ends the wait at once,
// with no clock step; a write that changed nothing waits for nothing.
func TestExpectationWaitEndsOnEvent(t *testing.T) {
	ctx := context.Background()
	env, r, ro := internalEnv(t, 1)
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(ro)}
	for range 2 { // the finalizer, the first ReplicaSet
		if _, err := r.Reconcile(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	cached := &rampv1.Rollout{}
	if err := env.API.Get(ctx, req.NamespacedName, cached); err != nil {
		t.Fatal(err)
	}
	cached.Spec.Template.Spec.Containers[0].Image = "nginx:2" // work for a pass that plans
	if err := env.API.Update(ctx, cached); err != nil {
		t.Fatal(err)
	}
	// A write of ours from this version is on its way to the cache.
	r.expect.Wrote(cached.UID, cached.ResourceVersion, env.Clock.Now())
	mark := len(env.Log())
	for _, after := range []time.Duration{time.Second, 6 * time.Second, 20 * time.Second} {
		env.Clock.SetTime(controllertest.Start.Add(after))
		res, err := r.Reconcile(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if res.RequeueAfter != expectationTTL || expectationTTL < 30*time.Second {
			t.Errorf("%s after our write: RequeueAfter %s, want the %s safety net (at least 30 s)", after, res.RequeueAfter, expectationTTL)
		}
		if w := env.Since(mark); len(w) > 0 {
			t.Fatalf("%s after our write, a pass planned from the stale cache and wrote %v", after, w)
		}
	}
	// The watch event: the cache shows a newer version. The next pass (the
	// event enqueues it; the clock does not move) plans and writes.
	cached.Status.Message = "moved on"
	if err := env.API.Status().Update(ctx, cached); err != nil {
		t.Fatal(err)
	}
	res, err := r.Reconcile(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.RequeueAfter == expectationTTL || len(env.Since(mark)) == 0 {
		t.Errorf("after the event the pass still waited (RequeueAfter %s, writes %v)", res.RequeueAfter, env.Since(mark))
	}

	// A write the API server kept at the same version brings no event, and
	// so no wait.
	var e expectations
	same := cached.DeepCopy()
	e.WroteObj(same, same.ResourceVersion, env.Clock.Now())
	if e.Stale(same.UID, same.ResourceVersion, env.Clock.Now()) {
		t.Error("a write that changed nothing left an expectation: the pass would wait for an event that never comes")
	}
}

// internalEnv is a reconciler on a fake API holding ns/web: a canary
// Rollout of the given replicas without steps, for this package's own tests.
func internalEnv(t *testing.T, replicas int32) (*controllertest.Env, *Reconciler, *rampv1.Rollout) {
	ro := &rampv1.Rollout{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "web-uid"},
		Spec: rampv1.RolloutSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1"}}}},
			Strategy: rampv1.RolloutStrategy{Canary: &rampv1.CanaryStrategy{}}}}
	var idx []controllertest.Index
	for _, ix := range Indexes() {
		idx = append(idx, controllertest.Index(ix))
	}
	env := controllertest.New(t, idx, ro)
	return env, &Reconciler{Client: env.Client, Recorder: env.Recorder, Clock: env.Clock}, ro
}

// TestRevisionAnnotationAwaitsCache: the pass that starts a revision
// writes the Rollout's revision annotation; until the cache shows that
// write, a pass from the older version is stale. Without it, a pass woken
// by the new ReplicaSet's event dropped the status held for the newer
// version and planned the revision's start again (an undo within the
// rollback window told SkipSteps, which upstream does not: make
// conformance, canary-rollback-window).
func TestRevisionAnnotationAwaitsCache(t *testing.T) {
	ctx := context.Background()
	env, r, ro := internalEnv(t, 1)
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(ro)}
	for range 3 {
		if _, err := r.Reconcile(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	cached := &rampv1.Rollout{}
	if err := env.API.Get(ctx, req.NamespacedName, cached); err != nil {
		t.Fatal(err)
	}
	cached.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	if err := env.API.Update(ctx, cached); err != nil {
		t.Fatal(err)
	}
	before := cached.ResourceVersion
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	after := &rampv1.Rollout{}
	if err := env.API.Get(ctx, req.NamespacedName, after); err != nil {
		t.Fatal(err)
	}
	if after.Annotations[rampv1.RevisionAnnotation] != "2" {
		t.Fatalf("revision annotation %q after the new template's pass, want 2", after.Annotations[rampv1.RevisionAnnotation])
	}
	if !r.expect.Stale(after.UID, before, env.Clock.Now()) {
		t.Errorf("a cache still at version %s (before the revision annotation) is not stale", before)
	}
}
