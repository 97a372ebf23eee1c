package view

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// now is the fixed clock of every fixture.
var now = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(-d)) }

// world is one Rollout and the objects `get rollout` reads for it.
type world struct {
	ro   *rampv1.Rollout
	rss  []appsv1.ReplicaSet
	pods []corev1.Pod
	runs []rampv1.AnalysisRun
}

func (w *world) view() RolloutView { return Rollout(w.ro, w.rss, w.pods, w.runs, now) }

func newRollout(name string, replicas int32, age time.Duration) *rampv1.Rollout {
	return &rampv1.Rollout{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "shop", UID: types.UID("uid-" + name),
			Generation: 4, CreationTimestamp: ago(age),
		},
		Spec: rampv1.RolloutSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
		},
		Status: rampv1.RolloutStatus{ObservedGeneration: "4"},
	}
}

// addRS adds a ReplicaSet of revision rev running image, with spec replicas
// and ready (all ready pods also available), and its pods: the first ready
// ones Running and ready, the rest as mk makes them.
func (w *world) addRS(hash string, rev int, image string, spec, ready int32, age time.Duration) *appsv1.ReplicaSet {
	name := w.ro.Name + "-" + hash
	rs := appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: w.ro.Namespace, UID: types.UID("uid-" + name),
			Labels:            map[string]string{"app": w.ro.Name, rampv1.DefaultRolloutUniqueLabelKey: hash},
			Annotations:       map[string]string{rampv1.RevisionAnnotation: strconv.Itoa(rev)},
			CreationTimestamp: ago(age),
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "argoproj.io/v1alpha1", Kind: "Rollout", Name: w.ro.Name, UID: w.ro.UID, Controller: ptr.To(true),
			}},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(spec),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}}},
		},
		Status: appsv1.ReplicaSetStatus{Replicas: spec, ReadyReplicas: ready, AvailableReplicas: ready},
	}
	for i := range ready {
		w.addPod(&rs, i, age, runningPod(true, 0))
	}
	w.rss = append(w.rss, rs)
	return &w.rss[len(w.rss)-1]
}

// addPod adds pod i of rs, shaped by status.
func (w *world) addPod(rs *appsv1.ReplicaSet, i int32, age time.Duration, status corev1.PodStatus) *corev1.Pod {
	p := corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("%s-%c%c%c%c%c", rs.Name, 'a'+i, 'k', 'x'+i%3, 'q', 'b'+i), Namespace: rs.Namespace,
			Labels:            map[string]string{rampv1.DefaultRolloutUniqueLabelKey: rs.Labels[rampv1.DefaultRolloutUniqueLabelKey]},
			CreationTimestamp: ago(age),
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: ptr.To(true),
			}},
		},
		Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}},
		Status: status,
	}
	w.pods = append(w.pods, p)
	return &w.pods[len(w.pods)-1]
}

func runningPod(ready bool, restarts int32) corev1.PodStatus {
	cond := corev1.ConditionFalse
	if ready {
		cond = corev1.ConditionTrue
	}
	return corev1.PodStatus{
		Phase:      corev1.PodRunning,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: cond}},
		ContainerStatuses: []corev1.ContainerStatus{{
			Name: "app", Ready: ready, RestartCount: restarts,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
		}},
	}
}

func waitingPod(reason string, restarts int32) corev1.PodStatus {
	return corev1.PodStatus{
		Phase:      corev1.PodPending,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}},
		ContainerStatuses: []corev1.ContainerStatus{{
			Name: "app", RestartCount: restarts,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}},
		}},
	}
}

// addRun adds an AnalysisRun of revision rev with one metric's counts.
func (w *world) addRun(name, hash string, rev int, phase rampv1.AnalysisPhase, ok, bad int32, age time.Duration) {
	w.runs = append(w.runs, rampv1.AnalysisRun{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: w.ro.Namespace, CreationTimestamp: ago(age),
			Labels:      map[string]string{rampv1.DefaultRolloutUniqueLabelKey: hash},
			Annotations: map[string]string{rampv1.RevisionAnnotation: strconv.Itoa(rev)},
		},
		Status: rampv1.AnalysisRunStatus{
			Phase: phase,
			MetricResults: []rampv1.MetricResult{{
				Name: "success-rate", Phase: phase, Count: ok + bad, Successful: ok, Failed: bad,
			}},
		},
	})
}

func counts(ro *rampv1.Rollout, current, updated, ready, available int32) {
	ro.Status.Replicas, ro.Status.UpdatedReplicas = current, updated
	ro.Status.ReadyReplicas, ro.Status.AvailableReplicas = ready, available
}

func TestAgo(t *testing.T) {
	if got := now.Sub(ago(90 * time.Second).Time); got != 90*time.Second {
		t.Errorf("ago(90s) is %s before now", got)
	}
}
