package rollout_test

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestProgressDeadlineReadsReadinessLive: a pass due to declare the progress
// deadline while its view of the ReplicaSets (the cache, here their
// unchanged status) shows no progress reads the new pods' readiness live:
// a pod that became ready within the window keeps the Rollout Progressing;
// with none, the deadline fires as upstream's.
func TestProgressDeadlineReadsReadinessLive(t *testing.T) {
	for _, ready := range []bool{false, true} {
		ro := webRollout(t, "      steps: [{setWeight: 50}]\n")
		deadline := int32(30)
		ro.Spec.ProgressDeadlineSeconds = &deadline
		env, r := newEnv(t, ro)
		converge(t, env, r, "web")
		update(t, env, "web", func(ro *rampv1.Rollout) { ro.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
		for range 3 { // the new ReplicaSet, its counts; its pods never reported
			if _, err := pass(r, "web"); err != nil {
				t.Fatal(err)
			}
			env.Clock.Step(3 * time.Second)
		}
		cond := condition(getRollout(t, env, "web").Status, rampv1.RolloutProgressing)
		if cond == nil || cond.Reason != rampv1.RolloutReasonReplicaSetUpdated {
			t.Fatalf("not progressing after the update: %+v", cond)
		}
		last := cond.LastUpdateTime.Time
		if ready {
			var v2 *appsv1.ReplicaSet
			for _, rs := range replicaSets(t, env) {
				if rs.Labels[rampv1.DefaultRolloutUniqueLabelKey] == getRollout(t, env, "web").Status.CurrentPodHash {
					v2 = &rs
				}
			}
			if v2 == nil {
				t.Fatal("no new ReplicaSet")
			}
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: v2.Name + "-a", Labels: v2.Spec.Template.Labels,
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(v2, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}},
				Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue,
					LastTransitionTime: metav1.NewTime(last.Add(25 * time.Second))}}}}
			if err := env.API.Create(context.Background(), p); err != nil {
				t.Fatal(err)
			}
		}
		env.Clock.SetTime(last.Add(40 * time.Second)) // a late pass: the deadline was due 10 s ago
		res, err := pass(r, "web")
		if err != nil {
			t.Fatal(err)
		}
		st := getRollout(t, env, "web").Status
		cond = condition(st, rampv1.RolloutProgressing)
		fired := cond.Reason == rampv1.RolloutReasonProgressDeadlineExceeded
		if fired == ready {
			t.Errorf("ready pod %v: Progressing %s (phase %s), deadline fired %v", ready, cond.Reason, st.Phase, fired)
		}
		if ready && (res.RequeueAfter <= 0 || res.RequeueAfter > 15*time.Second) {
			t.Errorf("ready pod: RequeueAfter %s, want the rest of the window from its readiness (15 s)", res.RequeueAfter)
		}
	}
}
