package experiment

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
)

// newReconciler is an Experiment reconciler on a fake API holding objs.
func newReconciler(t testing.TB, objs ...client.Object) (*controllertest.Env, *Reconciler) {
	env := controllertest.New(t, nil, objs...)
	return env, &Reconciler{Client: env.Client, Recorder: env.Recorder, Clock: env.Clock, Live: env.Client}
}

// pass runs one reconcile of the Experiment ns/exp.
func pass(r *Reconciler) (ctrl.Result, error) {
	return r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "ns", Name: "exp"}})
}

// newExperiment is the Experiment ns/exp running one template "a" of one
// pod labelled app=exp for a minute.
func newExperiment() *rampv1.Experiment {
	one := int32(1)
	return &rampv1.Experiment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "exp", UID: "exp-uid", Generation: 1, CreationTimestamp: metav1.NewTime(controllertest.Start)},
		Spec: rampv1.ExperimentSpec{Duration: "1m", Templates: []rampv1.TemplateSpec{{
			Name: "a", Replicas: &one,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "exp"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "exp"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}},
		}}},
	}
}

func get[T client.Object](t testing.TB, env *controllertest.Env, name string, obj T) T {
	t.Helper()
	if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: name}, obj); err != nil {
		t.Fatal(err)
	}
	return obj
}
