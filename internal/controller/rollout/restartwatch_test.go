package rollout

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func readyPod(ready bool) *corev1.Pod {
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	return &corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}}}
}

func TestPodReadinessChanged(t *testing.T) {
	for _, c := range []struct {
		old, new bool
		want     bool
	}{{false, true, true}, {true, false, true}, {true, true, false}, {false, false, false}} {
		if got := podReadinessChanged.Update(event.UpdateEvent{ObjectOld: readyPod(c.old), ObjectNew: readyPod(c.new)}); got != c.want {
			t.Errorf("ready %v -> %v: passed %v, want %v", c.old, c.new, got, c.want)
		}
	}
	if podReadinessChanged.Create(event.CreateEvent{Object: readyPod(true)}) {
		t.Error("a pod creation woke the Rollout")
	}
	if !podReadinessChanged.Delete(event.DeleteEvent{Object: readyPod(true)}) {
		t.Error("a pod deletion did not pass")
	}
}

// TestRolloutRestartingPod: a pod wakes its Rollout only while a restart is
// pending.
func TestRolloutRestartingPod(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := rampv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	ctrlRef := func(kind, name string) []metav1.OwnerReference {
		yes := true
		return []metav1.OwnerReference{{APIVersion: "x/v1", Kind: kind, Name: name, UID: "u-" + "name", Controller: &yes}}
	}
	at := metav1.NewTime(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
	before := metav1.NewTime(at.Add(-time.Minute))
	ro := func(name string, restartedAt *metav1.Time) *rampv1.Rollout {
		return &rampv1.Rollout{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
			Spec: rampv1.RolloutSpec{RestartAt: &at}, Status: rampv1.RolloutStatus{RestartedAt: restartedAt}}
	}
	rs := func(name, rollout string) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, OwnerReferences: ctrlRef("Rollout", rollout)}}
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		ro("pending", nil), ro("earlier", &before), ro("done", &at),
		rs("pending-1", "pending"), rs("earlier-1", "earlier"), rs("done-1", "done"),
	).Build()
	r := &Reconciler{Client: c}
	pod := func(owner string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", OwnerReferences: ctrlRef("ReplicaSet", owner)}}
	}
	for owner, want := range map[string]string{"pending-1": "pending", "earlier-1": "earlier", "done-1": "", "missing": ""} {
		reqs := r.rolloutRestartingPod(context.Background(), pod(owner))
		switch {
		case want == "" && len(reqs) != 0:
			t.Errorf("pod of %s woke %v", owner, reqs)
		case want != "" && (len(reqs) != 1 || reqs[0].Name != want):
			t.Errorf("pod of %s woke %v, want %s", owner, reqs, want)
		}
	}
	if reqs := r.rolloutRestartingPod(context.Background(), &corev1.Pod{}); len(reqs) != 0 {
		t.Errorf("an unowned pod woke %v", reqs)
	}
}
