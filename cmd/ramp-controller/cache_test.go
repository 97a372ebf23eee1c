package main

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestSlimPod: the cache keeps a pod's metadata and readiness, not its
// spec, other status or managedFields.
func TestSlimPod(t *testing.T) {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"app": "a"}, UID: "u",
			OwnerReferences: []metav1.OwnerReference{{Name: "rs"}}, ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "x"}}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionTrue, Message: "m"}}},
	}
	out, err := slimPod(p)
	if err != nil {
		t.Fatal(err)
	}
	s := out.(*corev1.Pod)
	switch {
	case s.Name != "p" || s.UID != "u" || s.Labels["app"] != "a" || len(s.OwnerReferences) != 1:
		t.Errorf("metadata lost: %+v", s.ObjectMeta)
	case len(s.ManagedFields) != 0 || len(s.Spec.Containers) != 0 || s.Status.Phase != "":
		t.Errorf("kept more than metadata and readiness: %+v", s)
	case len(s.Status.Conditions) != 1 || s.Status.Conditions[0].Type != corev1.PodReady || s.Status.Conditions[0].Status != corev1.ConditionTrue:
		t.Errorf("readiness %+v", s.Status.Conditions)
	}
	if len(p.Spec.Containers) != 1 || len(p.ManagedFields) != 1 {
		t.Error("the informer's object was modified")
	}
	if o, _ := slimPod("x"); o != "x" {
		t.Error("a non-pod was changed")
	}
}

// TestSlimKinds: each kind Ramp does not own is cached with the fields the
// controller reads and without status, managedFields or the last-applied
// annotation; other annotations stay.
func TestSlimKinds(t *testing.T) {
	meta := func() metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: "x", Namespace: "ns", Generation: 3, UID: "u",
			Annotations:     map[string]string{lastApplied: `{"big":"object"}`, rampv1.ManagedByRolloutsAnnotation: "web"},
			OwnerReferences: []metav1.OwnerReference{{Name: "owner"}}, ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}}
	}
	checkMeta := func(t *testing.T, o metav1.Object) {
		t.Helper()
		if o.GetName() != "x" || o.GetGeneration() != 3 || o.GetUID() != "u" || len(o.GetOwnerReferences()) != 1 ||
			o.GetAnnotations()[rampv1.ManagedByRolloutsAnnotation] != "web" {
			t.Errorf("metadata lost: %+v", o)
		}
		if _, ok := o.GetAnnotations()[lastApplied]; ok || len(o.GetManagedFields()) != 0 {
			t.Errorf("kept the last-applied annotation or managedFields: %v %v", o.GetAnnotations(), o.GetManagedFields())
		}
	}
	replicas := int32(4)
	t.Run("Service", func(t *testing.T) {
		in := &corev1.Service{ObjectMeta: meta(), Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "a"},
			Ports: []corev1.ServicePort{{Port: 80}}, ClusterIP: "10.0.0.1"},
			Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: "1.2.3.4"}}}}}
		out, _ := slimService(in)
		s := out.(*corev1.Service)
		checkMeta(t, s)
		if s.Spec.Selector["app"] != "a" || len(s.Spec.Ports) != 0 || s.Spec.ClusterIP != "" || len(s.Status.LoadBalancer.Ingress) != 0 {
			t.Errorf("kept %+v", s.Spec)
		}
	})
	t.Run("Deployment", func(t *testing.T) {
		in := &appsv1.Deployment{ObjectMeta: meta(), Spec: appsv1.DeploymentSpec{Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}},
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}},
			Status: appsv1.DeploymentStatus{Replicas: 4, Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable}}}}
		out, _ := slimDeployment(in)
		d := out.(*appsv1.Deployment)
		checkMeta(t, d)
		if *d.Spec.Replicas != 4 || d.Spec.Selector == nil || d.Spec.Template.Spec.Containers[0].Image != "i" {
			t.Errorf("lost what a workloadRef reads: %+v", d.Spec)
		}
		if d.Status.Replicas != 0 || len(d.Status.Conditions) != 0 {
			t.Errorf("kept the status: %+v", d.Status)
		}
	})
	t.Run("HorizontalPodAutoscaler", func(t *testing.T) {
		ref := autoscalingv2.CrossVersionObjectReference{APIVersion: "argoproj.io/v1alpha1", Kind: "Rollout", Name: "web"}
		in := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: meta(), Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: ref, MaxReplicas: 10, Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType}}},
			Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 3}}
		out, _ := slimHPA(in)
		h := out.(*autoscalingv2.HorizontalPodAutoscaler)
		checkMeta(t, h)
		if h.Spec.ScaleTargetRef != ref || h.Spec.MaxReplicas != 0 || len(h.Spec.Metrics) != 0 || h.Status.CurrentReplicas != 0 {
			t.Errorf("kept %+v", h)
		}
	})
	t.Run("Rollout", func(t *testing.T) {
		in := &rampv1.Rollout{ObjectMeta: meta(), Spec: rampv1.RolloutSpec{Replicas: &replicas}}
		in.Status.Phase = rampv1.RolloutPhaseHealthy
		out, _ := stripMeta(in)
		ro := out.(*rampv1.Rollout)
		checkMeta(t, ro)
		if *ro.Spec.Replicas != 4 || ro.Status.Phase != rampv1.RolloutPhaseHealthy {
			t.Errorf("a Rollout lost its spec or status: %+v", ro)
		}
	})
	for _, f := range []func(any) (any, error){slimService, slimDeployment, slimHPA, stripMeta} {
		if o, _ := f("x"); o != "x" {
			t.Error("a transform changed an object of another type")
		}
	}
}

// TestCacheOptionsSlimEveryForeignKind: the Services, Deployments and HPAs
// of the whole cluster are cached slim, the Rollouts' kinds stripped, and
// route objects (updated whole by the routers) lose only managedFields.
func TestCacheOptionsSlimEveryForeignKind(t *testing.T) {
	opts := cacheOptions(options{})
	want := map[string]bool{"Service": true, "Deployment": true, "HorizontalPodAutoscaler": true, "Pod": true,
		"Rollout": true, "AnalysisRun": true, "Experiment": true, "AnalysisTemplate": true, "ClusterAnalysisTemplate": true, "Job": true}
	for obj, by := range opts.ByObject {
		kind := reflect.TypeOf(obj).Elem().Name()
		if want[kind] && by.Transform == nil {
			t.Errorf("%s cached without a transform", kind)
		}
		delete(want, kind)
	}
	if len(want) > 0 {
		t.Errorf("no cache options for %v", want)
	}
	if opts.DefaultTransform == nil {
		t.Error("route objects keep their managedFields")
	}
}
