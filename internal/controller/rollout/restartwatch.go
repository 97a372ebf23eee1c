package rollout

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// A restart (spec.restartAt) deletes a few pods at a time, counting the
// ready pods in the pod cache. The ReplicaSet's status can report a
// replacement ready before the pod cache has seen it, and that pass then
// deletes nothing; the pod's own readiness change must wake the Rollout
// again. Only readiness changes and deletions pass the predicate, and only
// Rollouts with a restart pending are enqueued, so pods cost nothing
// otherwise.

// podReadinessChanged passes a pod update that flips its Ready condition,
// and a pod deletion.
var podReadinessChanged = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return true },
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*corev1.Pod)
		n, ok2 := e.ObjectNew.(*corev1.Pod)
		return ok1 && ok2 && podReady(o) != podReady(n)
	},
}

// rolloutRestartingPod maps a pod to its Rollout (through the owning
// ReplicaSet) when that Rollout has a restart pending.
func (r *Reconciler) rolloutRestartingPod(ctx context.Context, o client.Object) []reconcile.Request {
	ref := metav1.GetControllerOf(o)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return nil
	}
	var rs appsv1.ReplicaSet
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: o.GetNamespace(), Name: ref.Name}, &rs); err != nil {
		return nil // gone or not Ramp's: nothing to wake
	}
	owner := metav1.GetControllerOf(&rs)
	if owner == nil || owner.Kind != "Rollout" {
		return nil
	}
	key := client.ObjectKey{Namespace: o.GetNamespace(), Name: owner.Name}
	var ro rampv1.Rollout
	if err := r.Client.Get(ctx, key, &ro); err != nil || !restartPending(&ro) {
		return nil
	}
	return []reconcile.Request{{NamespacedName: key}}
}

// restartPending reports whether spec.restartAt asks for a restart that
// status.restartedAt does not record yet.
func restartPending(ro *rampv1.Rollout) bool {
	ra := ro.Spec.RestartAt
	return ra != nil && (ro.Status.RestartedAt == nil || ro.Status.RestartedAt.Before(ra))
}
