package main

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
