package main

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// lastApplied is the annotation `kubectl apply` keeps the whole applied
// object in: as big as the object again, and never read by Ramp.
const lastApplied = corev1.LastAppliedConfigAnnotation

// cacheOptions restricts the informers to --namespace and, for the argoproj
// kinds, to the objects of this --instance-id, and keeps of each cached
// object only what the controller reads (docs/performance.md, "What the
// caches hold").
func cacheOptions(o options) cache.Options {
	var opts cache.Options
	if o.namespace != "" {
		opts.DefaultNamespaces = map[string]cache.Config{o.namespace: {}}
	}
	op, vals := selection.DoesNotExist, []string(nil)
	if o.instanceID != "" {
		op, vals = selection.Equals, []string{o.instanceID}
	}
	sel := labels.NewSelector().Add(requirement(rampv1.ControllerInstanceIDLabel, op, vals))
	opts.ByObject = map[client.Object]cache.ByObject{}
	for _, obj := range []client.Object{&rampv1.Rollout{}, &rampv1.AnalysisRun{}, &rampv1.Experiment{}} {
		opts.ByObject[obj] = cache.ByObject{Label: sel, Transform: stripMeta}
	}
	// Only ReplicaSets and pods that carry a rollouts-pod-template-hash are
	// Ramp's: the cache never holds a Deployment's ReplicaSets or other pods.
	hashed := labels.NewSelector().Add(requirement(rampv1.DefaultRolloutUniqueLabelKey, selection.Exists, nil))
	opts.ByObject[&appsv1.ReplicaSet{}] = cache.ByObject{Label: hashed}
	opts.ByObject[&corev1.Pod{}] = cache.ByObject{Label: hashed, Transform: slimPod}
	// Kinds Ramp does not own are cached cluster-wide (a Rollout may name
	// any of them), each cut down to the fields it reads.
	opts.ByObject[&corev1.Service{}] = cache.ByObject{Transform: slimService}
	opts.ByObject[&appsv1.Deployment{}] = cache.ByObject{Transform: slimDeployment}
	opts.ByObject[&autoscalingv2.HorizontalPodAutoscaler{}] = cache.ByObject{Transform: slimHPA}
	opts.ByObject[&rampv1.AnalysisTemplate{}] = cache.ByObject{Transform: stripMeta}
	opts.ByObject[&rampv1.ClusterAnalysisTemplate{}] = cache.ByObject{Transform: stripMeta}
	// Only the Jobs of AnalysisRuns (job metric provider).
	opts.ByObject[&batchv1.Job{}] = cache.ByObject{Label: labels.NewSelector().Add(requirement(rampv1.AnalysisRunNameKey, selection.Exists, nil)),
		Transform: stripMeta}
	// Everything else (the traffic routers' route objects, which routers
	// write back whole with an update) loses only managedFields, which an
	// update without them leaves as they are on the server.
	opts.DefaultTransform = cache.TransformStripManagedFields()
	return opts
}

func requirement(key string, op selection.Operator, vals []string) labels.Requirement {
	req, err := labels.NewRequirement(key, op, vals)
	if err != nil {
		panic(err) // the label keys are constants: cannot happen
	}
	return *req
}

// stripMeta drops managedFields and the last-applied annotation of an
// object the controller never updates whole (it patches), in place: the
// informer's copy is the one it hands over.
func stripMeta(obj any) (any, error) {
	if o, ok := obj.(metav1.Object); ok {
		slimMeta(o)
	}
	return obj, nil
}

func slimMeta(o metav1.Object) {
	o.SetManagedFields(nil)
	if a := o.GetAnnotations(); a[lastApplied] != "" {
		delete(a, lastApplied)
		o.SetAnnotations(a)
	}
}

// slimService keeps a Service's metadata and selector: what the Rollout
// and Experiment controllers read (the pod-template-hash they point it at,
// the managed-by annotation, the owner).
func slimService(obj any) (any, error) {
	s, ok := obj.(*corev1.Service)
	if !ok {
		return obj, nil
	}
	slim := &corev1.Service{TypeMeta: s.TypeMeta, ObjectMeta: s.ObjectMeta}
	slimMeta(slim)
	slim.Spec.Selector = s.Spec.Selector
	return slim, nil
}

// slimDeployment keeps what a workloadRef reads: the metadata (generation),
// replicas, selector and pod template; not the status.
func slimDeployment(obj any) (any, error) {
	d, ok := obj.(*appsv1.Deployment)
	if !ok {
		return obj, nil
	}
	slim := &appsv1.Deployment{TypeMeta: d.TypeMeta, ObjectMeta: d.ObjectMeta}
	slimMeta(slim)
	slim.Spec.Replicas, slim.Spec.Selector, slim.Spec.Template = d.Spec.Replicas, d.Spec.Selector, d.Spec.Template
	return slim, nil
}

// slimHPA keeps an HPA's metadata and scaleTargetRef: which Rollout it
// scales is all the controller reads (the HPA's own scale writes reach it
// through the Rollout's scale subresource).
func slimHPA(obj any) (any, error) {
	h, ok := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	if !ok {
		return obj, nil
	}
	slim := &autoscalingv2.HorizontalPodAutoscaler{TypeMeta: h.TypeMeta, ObjectMeta: h.ObjectMeta}
	slimMeta(slim)
	slim.Spec.ScaleTargetRef = h.Spec.ScaleTargetRef
	return slim, nil
}

// slimPod is what the cache keeps of a pod: its metadata (without
// managedFields) and whether it is Ready. Restarts, ephemeral metadata and
// readiness need no more, and a pod's spec is most of its size.
func slimPod(obj any) (any, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	slim := &corev1.Pod{TypeMeta: p.TypeMeta, ObjectMeta: p.ObjectMeta}
	slim.ManagedFields = nil
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			slim.Status.Conditions = []corev1.PodCondition{{Type: c.Type, Status: c.Status}}
		}
	}
	return slim, nil
}
