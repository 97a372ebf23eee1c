package dashboard

import (
	"encoding/json"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/view"
)

// TestSlimPodShowsTheSame: the rollout page's tree (internal/view) is the
// same from a cached slim pod as from the whole pod, for pods running,
// crash-looping, failed at init and terminating; and the slim pod holds
// none of the spec's bulk (environment, volumes, resources).
func TestSlimPodShowsTheSame(t *testing.T) {
	ro := world()[0].(*rampv1.Rollout)
	rs := world()[2].(*appsv1.ReplicaSet)
	if rs.Labels[rampv1.DefaultRolloutUniqueLabelKey] == "" {
		t.Fatalf("fixture: %s is not a rollout's ReplicaSet", rs.Name)
	}
	pod := func(name string, status corev1.PodStatus) corev1.Pod {
		return corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: rs.Namespace, CreationTimestamp: metav1.NewTime(now.Add(-90e9)),
				Labels: rs.Spec.Template.Labels, Annotations: map[string]string{corev1.LastAppliedConfigAnnotation: "{...}"},
				ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kubelet"}},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: ptr.To(true)}}},
			Spec: corev1.PodSpec{
				Containers: []corev1.Container{
					{Name: "app", Image: "web:2", Env: []corev1.EnvVar{{Name: "A", Value: "b"}},
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}},
					{Name: "proxy", Image: "envoy:1"}},
				Volumes: []corev1.Volume{{Name: "config"}},
			},
			Status: status,
		}
	}
	ready := []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now)}}
	pods := []corev1.Pod{
		pod("web-1", corev1.PodStatus{Phase: corev1.PodRunning, Conditions: ready, ContainerStatuses: []corev1.ContainerStatus{
			{Name: "app", Ready: true, RestartCount: 1, State: running, Image: "web:2", ImageID: "sha256:1"}, {Name: "proxy", Ready: true, State: running}}}),
		pod("web-2", corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{
			{Name: "app", RestartCount: 7, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off"}}},
			{Name: "proxy", Ready: true, State: running}}}),
		pod("web-3", corev1.PodStatus{Phase: corev1.PodPending, InitContainerStatuses: []corev1.ContainerStatus{
			{Name: "migrate", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2}}}}}),
		pod("web-4", corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted"}),
	}
	pods[3].DeletionTimestamp = ptr.To(metav1.NewTime(now))
	slims := make([]corev1.Pod, len(pods))
	for i := range pods {
		s, err := slimPod(pods[i].DeepCopy())
		if err != nil {
			t.Fatal(err)
		}
		slims[i] = *s.(*corev1.Pod)
	}
	whole, _ := json.Marshal(view.Rollout(ro, []appsv1.ReplicaSet{*rs}, pods, nil, now))
	slim, _ := json.Marshal(view.Rollout(ro, []appsv1.ReplicaSet{*rs}, slims, nil, now))
	if string(whole) != string(slim) {
		t.Errorf("the rollout page differs with slim pods:\nwhole %s\nslim  %s", whole, slim)
	}
	for _, want := range []string{"web-1", "2/2", "CrashLoopBackOff", "Init:Error", "Terminating"} {
		if !strings.Contains(string(whole), want) {
			t.Errorf("the page's tree lacks %q: the test shows nothing: %s", want, whole)
		}
	}
	s := slims[0]
	if s.Spec.Volumes != nil || s.Spec.Containers[0].Env != nil || s.Spec.Containers[0].Resources.Requests != nil ||
		s.ManagedFields != nil || s.Annotations[corev1.LastAppliedConfigAnnotation] != "" || s.Status.ContainerStatuses[0].ImageID != "" {
		t.Errorf("the slim pod keeps what no page shows: %+v", s)
	}
}

// TestCacheOptionsKeepWhatPagesShow: the informers hold the ReplicaSets
// and pods carrying a rollout's pod-template hash (not a Deployment's),
// the Events about Rollouts, and everything of the argoproj kinds.
func TestCacheOptionsKeepWhatPagesShow(t *testing.T) {
	o := cacheOptions(scheme(t))
	for obj, by := range o.ByObject {
		switch obj.(type) {
		case *appsv1.ReplicaSet, *corev1.Pod:
			if _, pod := obj.(*corev1.Pod); pod && by.Transform == nil {
				t.Errorf("pods are cached whole")
			}
			if !by.Label.Matches(labels.Set{rampv1.DefaultRolloutUniqueLabelKey: "abc"}) || by.Label.Matches(labels.Set{"pod-template-hash": "abc"}) {
				t.Errorf("%T: selector %q", obj, by.Label)
			}
		case *corev1.Event:
			if !by.Field.Matches(fields.Set{"involvedObject.kind": "Rollout"}) || by.Field.Matches(fields.Set{"involvedObject.kind": "Pod"}) {
				t.Errorf("Events: selector %q", by.Field)
			}
		default:
			t.Errorf("%T is narrowed: the pages show all of them", obj)
		}
	}
	if len(o.ByObject) != 3 || o.DefaultTransform == nil || o.Scheme == nil {
		t.Errorf("options %+v", o)
	}
}
