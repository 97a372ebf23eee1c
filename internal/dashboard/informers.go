package dashboard

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// watchedKind is a kind the dashboard caches, with its list type and the
// name RBAC gives it.
type watchedKind struct {
	obj      client.Object
	list     client.ObjectList
	resource string
}

// watched are the kinds the dashboard caches: what the pages show. Never
// Secrets.
func watched() []watchedKind {
	return []watchedKind{
		{&rampv1.Rollout{}, &rampv1.RolloutList{}, "rollouts.argoproj.io"},
		{&appsv1.ReplicaSet{}, &appsv1.ReplicaSetList{}, "replicasets.apps"},
		{&corev1.Pod{}, &corev1.PodList{}, "pods"},
		{&rampv1.AnalysisRun{}, &rampv1.AnalysisRunList{}, "analysisruns.argoproj.io"},
		{&rampv1.Experiment{}, &rampv1.ExperimentList{}, "experiments.argoproj.io"},
		{&corev1.Event{}, &corev1.EventList{}, "events"},
		{&autoscalingv2.HorizontalPodAutoscaler{}, &autoscalingv2.HorizontalPodAutoscalerList{}, "horizontalpodautoscalers.autoscaling"},
	}
}

// preflight lists one object of each watched kind in every namespace, so
// an identity that may not fails at start naming the kind, instead of
// informers retrying forever.
func preflight(ctx context.Context, c client.Reader) error {
	for _, k := range watched() {
		if err := c.List(ctx, k.list, client.Limit(1)); err != nil {
			return fmt.Errorf("the dashboard lists and watches %s in every namespace, and this identity cannot: %w", k.resource, err)
		}
	}
	return nil
}

// rolloutOf is the Rollout a change of obj concerns: the Rollout itself,
// the Rollout controlling a ReplicaSet or owning an AnalysisRun or
// Experiment, the Rollout an Event is about or an HPA scales. Pods are left out: their
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
	case *autoscalingv2.HorizontalPodAutoscaler:
		if t := o.Spec.ScaleTargetRef; t.Kind == "Rollout" {
			return types.NamespacedName{Namespace: o.Namespace, Name: t.Name}, true
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

// handler tells the hub about every change of a watched object. A change
// of another kind that names a Rollout c does not hold (an Event anyone may
// create can name any Rollout) is dropped: there is nothing to show, and a
// stream of invented names would fill every browser's buffer.
func handler(h *Hub, c client.Reader) toolscache.ResourceEventHandler {
	changed := func(obj any) {
		key, ok := rolloutOf(obj)
		if !ok {
			return
		}
		if t, tomb := obj.(toolscache.DeletedFinalStateUnknown); tomb {
			obj = t.Obj
		}
		if _, self := obj.(*rampv1.Rollout); !self && c.Get(context.Background(), key, &rampv1.Rollout{}) != nil {
			return
		}
		h.Changed(key)
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    changed,
		UpdateFunc: func(_, obj any) { changed(obj) },
		DeleteFunc: changed,
	}
}
