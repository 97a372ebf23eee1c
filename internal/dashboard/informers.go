package dashboard

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// watched are the kinds the dashboard caches: what the pages show. Never
// Secrets.
func watched() []client.Object {
	return []client.Object{&rampv1.Rollout{}, &appsv1.ReplicaSet{}, &corev1.Pod{}, &rampv1.AnalysisRun{},
		&rampv1.Experiment{}, &corev1.Event{}}
}

// rolloutOf is the Rollout a change of obj concerns: the Rollout itself,
// the Rollout controlling a ReplicaSet or owning an AnalysisRun or
// Experiment, the Rollout an Event is about. Pods are left out: their
// ReplicaSet's status changes with them.
func rolloutOf(obj any) (types.NamespacedName, bool) {
	if t, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	switch o := obj.(type) {
	case *rampv1.Rollout:
		return types.NamespacedName{Namespace: o.Namespace, Name: o.Name}, true
	case *corev1.Event:
		if o.InvolvedObject.Kind == "Rollout" {
			return types.NamespacedName{Namespace: o.Namespace, Name: o.InvolvedObject.Name}, true
		}
	case *appsv1.ReplicaSet, *rampv1.AnalysisRun, *rampv1.Experiment:
		m := o.(metav1.Object)
		for _, ref := range m.GetOwnerReferences() {
			if ref.Kind == "Rollout" && ref.APIVersion == rampv1.GroupVersion.String() {
				return types.NamespacedName{Namespace: m.GetNamespace(), Name: ref.Name}, true
			}
		}
	}
	return types.NamespacedName{}, false
}

// handler tells the hub about every change of a watched object.
func handler(h *Hub) toolscache.ResourceEventHandler {
	changed := func(obj any) {
		if key, ok := rolloutOf(obj); ok {
			h.Changed(key)
		}
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    changed,
		UpdateFunc: func(_, obj any) { changed(obj) },
		DeleteFunc: changed,
	}
}
