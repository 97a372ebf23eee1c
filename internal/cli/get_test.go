package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// getWorld is one canary Rollout paused at its first step, with one object
// of each kind that belongs to another Rollout.
func getWorld() []client.Object {
	ro := &rampv1.Rollout{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "uid-web"},
		Spec: rampv1.RolloutSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Strategy: rampv1.RolloutStrategy{Canary: &rampv1.CanaryStrategy{Steps: []rampv1.CanaryStep{{SetWeight: ptr.To[int32](50)}, {Pause: &rampv1.RolloutPause{}}}}},
		},
		Status: rampv1.RolloutStatus{
			Phase: rampv1.RolloutPhasePaused, Message: "CanaryPauseStep", CurrentStepIndex: ptr.To[int32](1),
			StableRS: "aaa", CurrentPodHash: "bbb", Replicas: 2, UpdatedReplicas: 1, ReadyReplicas: 2, AvailableReplicas: 2,
		},
	}
	rs := func(owner, hash, rev string) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{
				Name: owner + "-" + hash, Namespace: "shop", UID: types.UID("uid-" + owner + "-" + hash),
				Labels:          map[string]string{"app": "web", rampv1.DefaultRolloutUniqueLabelKey: hash},
				Annotations:     map[string]string{"rollout.argoproj.io/revision": rev},
				OwnerReferences: []metav1.OwnerReference{{Kind: "Rollout", Name: owner, UID: types.UID("uid-" + owner), Controller: ptr.To(true)}},
			},
			Spec:   appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](1), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "web:" + rev}}}}},
			Status: appsv1.ReplicaSetStatus{Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1},
		}
	}
	pod := func(rs *appsv1.ReplicaSet) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: rs.Name + "-x1", Namespace: "shop", Labels: rs.Labels,
				OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: ptr.To(true)}},
			},
			Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning},
		}
	}
	run := func(owner, name string) *rampv1.AnalysisRun {
		return &rampv1.AnalysisRun{ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "shop", Annotations: map[string]string{"rollout.argoproj.io/revision": "2"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "Rollout", Name: owner, UID: types.UID("uid-" + owner), Controller: ptr.To(true)}},
		}, Status: rampv1.AnalysisRunStatus{Phase: rampv1.AnalysisPhaseRunning}}
	}
	stable, canary, foreign := rs("web", "aaa", "1"), rs("web", "bbb", "2"), rs("other", "ccc", "1")
	return []client.Object{ro, stable, canary, foreign, pod(stable), pod(canary), pod(foreign), run("web", "web-bbb-2"), run("other", "other-ccc-1")}
}

func fakeClient(t *testing.T, funcs interceptor.Funcs) client.WithWatch {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := rampv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(s).WithObjects(getWorld()...).WithInterceptorFuncs(funcs).Build()
}

func TestGetRolloutErrors(t *testing.T) {
	forbid := func(resource string) interceptor.Funcs {
		return interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, l client.ObjectList, opts ...client.ListOption) error {
			if _, ok := l.(*appsv1.ReplicaSetList); ok {
				return apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: resource}, "", nil)
			}
			return c.List(ctx, l, opts...)
		}}
	}
	for _, c := range []struct {
		name, rollout string
		funcs         interceptor.Funcs
		want          string
	}{
		{"missing", "nope", interceptor.Funcs{}, `rollout "shop/nope" not found`},
		{"forbidden", "web", forbid("replicasets"), `forbidden: cannot list replicasets.apps in namespace "shop"`},
	} {
		err := runGetRollout(context.Background(), fakeClient(t, c.funcs), "shop", c.rollout, getFlags{}, &bytes.Buffer{})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %s", c.name, err, c.want)
		}
	}
}

func TestGetFlags(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Main([]string{"ramp", "get", "rollout", "web", "-o", "xml"}, Streams{Out: &out, Err: &errOut})
	if code != 1 || !strings.Contains(errOut.String(), `unknown output format "xml"`) {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}
