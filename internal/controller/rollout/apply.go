package rollout

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// apply writes what the plan asks for, and nothing that is already so.
func (r *Reconciler) apply(ctx context.Context, ro *rampv1.Rollout, w *world, out plan.Output) error {
	if w.invalid != "" {
		return nil // an invalid spec changes nothing: the running version keeps serving
	}
	if out.CreateNew {
		if err := r.createReplicaSet(ctx, ro, w, out.NewReplicas); err != nil {
			return err
		}
		r.expect.createdRS(ro.UID, rsName(ro, w.hash), r.Clock.Now())
	}
	for name, n := range out.Scale {
		rs := w.byName(name)
		if err := r.scaleReplicaSet(ctx, ro.Namespace, name, n); err != nil {
			return err
		}
		if rs != nil {
			r.expect.wrote(rs.UID, rs.ResourceVersion, r.Clock.Now())
		}
	}
	for name, hash := range out.Services {
		if err := r.pointService(ctx, ro.Namespace, name, hash); err != nil {
			return err
		}
	}
	for _, p := range w.restart[:min(int(out.DeletePods), len(w.restart))] {
		if err := r.Client.Delete(ctx, p, client.Preconditions{UID: &p.UID}); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("restart pod %s: %w", p.Name, err)
		}
		r.deleted.Store(p.UID, r.Clock.Now())
	}
	return r.cleanupHistory(ctx, ro, w)
}

// pointService makes the Service select pods of the given hash.
func (r *Reconciler) pointService(ctx context.Context, ns, name, hash string) error {
	if name == "" || hash == "" {
		return nil
	}
	var svc corev1.Service
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &svc); err != nil {
		return client.IgnoreNotFound(err)
	}
	if svc.Spec.Selector[HashLabel] == hash {
		return nil
	}
	patch := client.MergeFrom(svc.DeepCopy())
	if svc.Spec.Selector == nil {
		svc.Spec.Selector = map[string]string{}
	}
	svc.Spec.Selector[HashLabel] = hash
	if err := r.Client.Patch(ctx, &svc, patch); err != nil {
		return fmt.Errorf("point Service %s at %s: %w", name, hash, err)
	}
	return nil
}

// patchStatus writes the status with one merge patch, only if it changed,
// guarded by resourceVersion so a concurrent user action is never lost.
func (r *Reconciler) patchStatus(ctx context.Context, ro *rampv1.Rollout, status rampv1.RolloutStatus) error {
	if apiequality.Semantic.DeepEqual(ro.Status, status) {
		return nil
	}
	rv := ro.ResourceVersion
	patch := client.MergeFromWithOptions(ro.DeepCopy(), client.MergeFromWithOptimisticLock{})
	ro.Status = status
	if err := r.Client.Status().Patch(ctx, ro, patch); err != nil {
		return err
	}
	r.expect.wrote(ro.UID, rv, r.Clock.Now())
	return nil
}

// cacheBehind reports whether the cache does not show a ReplicaSet write of
// ours yet (a creation or a scale).
func (r *Reconciler) cacheBehind(ro *rampv1.Rollout, w *world, now time.Time) bool {
	if r.expect.pendingCreate(ro.UID, func(name string) bool { return w.byName(name) != nil }, now) {
		return true
	}
	for _, rs := range w.all() {
		if r.expect.stale(rs.UID, rs.ResourceVersion, now) {
			return true
		}
	}
	return false
}
