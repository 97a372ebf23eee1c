package dashboard

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// cacheOptions keeps in the informers only what the pages show, so that
// the dashboard's memory grows with the rollouts and not with the rest of
// the cluster: the ReplicaSets and pods of rollouts (those carrying the
// rollouts-pod-template-hash label, as the controller's cache does), each
// pod cut to what its line on the rollout page reads (slimPod), and the
// Events about Rollouts (the only ones the pages list). managedFields and
// kubectl's last-applied copy are dropped from everything.
func cacheOptions(scheme *runtime.Scheme) crcache.Options {
	hashed, err := labels.NewRequirement(rampv1.DefaultRolloutUniqueLabelKey, selection.Exists, nil)
	if err != nil {
		panic(err) // a constant key: cannot happen
	}
	ours := labels.NewSelector().Add(*hashed)
	return crcache.Options{
		Scheme:           scheme,
		DefaultTransform: stripMeta,
		ByObject: map[client.Object]crcache.ByObject{
			&appsv1.ReplicaSet{}: {Label: ours},
			&corev1.Pod{}:        {Label: ours, Transform: slimPod},
			&corev1.Event{}:      {Field: fields.OneTermEqualSelector("involvedObject.kind", "Rollout")},
		},
	}
}

// stripMeta drops what no page shows from an object's metadata, in place
// (the informer hands over its own copy).
func stripMeta(obj any) (any, error) {
	if o, ok := obj.(metav1.Object); ok {
		o.SetManagedFields(nil)
		if a := o.GetAnnotations(); a[corev1.LastAppliedConfigAnnotation] != "" {
			delete(a, corev1.LastAppliedConfigAnnotation)
			o.SetAnnotations(a)
		}
	}
	return obj, nil
}

// slimPod keeps of a pod what internal/view reads for its line: metadata,
// the number of containers, phase and reason, readiness, and each
// container's readiness, restarts and state. The spec (environment,
// volumes, probes) is most of a pod's size and is not shown.
func slimPod(obj any) (any, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	slim := &corev1.Pod{TypeMeta: p.TypeMeta, ObjectMeta: p.ObjectMeta}
	if _, err := stripMeta(slim); err != nil {
		return nil, err
	}
	for _, c := range p.Spec.Containers {
		slim.Spec.Containers = append(slim.Spec.Containers, corev1.Container{Name: c.Name, Image: c.Image})
	}
	slim.Status.Phase, slim.Status.Reason = p.Status.Phase, p.Status.Reason
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			slim.Status.Conditions = []corev1.PodCondition{{Type: c.Type, Status: c.Status}}
		}
	}
	slim.Status.ContainerStatuses = slimStatuses(p.Status.ContainerStatuses)
	slim.Status.InitContainerStatuses = slimStatuses(p.Status.InitContainerStatuses)
	return slim, nil
}

func slimStatuses(in []corev1.ContainerStatus) []corev1.ContainerStatus {
	var out []corev1.ContainerStatus
	for _, c := range in {
		out = append(out, corev1.ContainerStatus{Name: c.Name, Ready: c.Ready, RestartCount: c.RestartCount, State: c.State})
	}
	return out
}
