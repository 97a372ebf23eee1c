package rollout_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/controller"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
	"github.com/ramp-rollouts/ramp/internal/controller/rollout"
)

const ns = "ns"

// newEnv is a Rollout reconciler, with this build's routers, on a fake API
// holding objs.
func newEnv(t testing.TB, objs ...client.Object) (*controllertest.Env, *rollout.Reconciler) {
	t.Helper()
	var idx []controllertest.Index
	for _, ix := range rollout.Indexes() {
		idx = append(idx, controllertest.Index(ix))
	}
	env := controllertest.New(t, idx, objs...)
	routers, err := controller.Routers(env.Client)
	if err != nil {
		t.Fatal(err)
	}
	return env, &rollout.Reconciler{Client: env.Client, Recorder: env.Recorder, Clock: env.Clock, Routers: routers}
}

// decode reads a test manifest.
func decode[T any](t testing.TB, manifest string) *T {
	t.Helper()
	obj := new(T)
	if err := yaml.UnmarshalStrict([]byte(manifest), obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

// webRollout is ns/web: 3 pods of app=web, canary with the given strategy
// body (YAML, indented under canary:).
func webRollout(t testing.TB, canary string) *rampv1.Rollout {
	ro := decode[rampv1.Rollout](t, `
metadata: {namespace: ns, name: web, uid: web-uid, generation: 1}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: "nginx:1"}]}
  strategy:
    canary:
`+canary)
	if ro.Spec.Strategy.Canary == nil {
		ro.Spec.Strategy.Canary = &rampv1.CanaryStrategy{}
	}
	return ro
}

func service(name string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(name + "-uid")},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}}}
}

// pass runs one reconcile of ns/<name>.
func pass(r *rollout.Reconciler, name string) (ctrl.Result, error) {
	return r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: name}})
}

// podSeq numbers the pods settle makes.
var podSeq atomic.Int64

// settle plays the ReplicaSet controller and the kubelet at once: every
// ReplicaSet gets exactly its spec's pods, all ready and available (pods
// made now, owned by it, labelled by its template).
func settle(t testing.TB, env *controllertest.Env) {
	t.Helper()
	ctx := context.Background()
	var rss appsv1.ReplicaSetList
	if err := env.API.List(ctx, &rss); err != nil {
		t.Fatal(err)
	}
	for i := range rss.Items {
		rs := &rss.Items[i]
		want := int32(1)
		if rs.Spec.Replicas != nil {
			want = *rs.Spec.Replicas
		}
		var pods corev1.PodList
		if err := env.API.List(ctx, &pods, client.InNamespace(rs.Namespace), client.MatchingLabels(rs.Spec.Template.Labels)); err != nil {
			t.Fatal(err)
		}
		var have int32
		for j := range pods.Items {
			p := &pods.Items[j]
			switch {
			case !metav1.IsControlledBy(p, rs):
			case have >= want:
				if err := env.API.Delete(ctx, p); err != nil {
					t.Fatal(err)
				}
			default:
				have++
			}
		}
		for ; have < want; have++ {
			n := podSeq.Add(1)
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: rs.Namespace, Name: fmt.Sprintf("%s-%d", rs.Name, n),
				UID: types.UID(fmt.Sprintf("%s-pod-%d", rs.Name, n)), Labels: rs.Spec.Template.Labels,
				CreationTimestamp: metav1.NewTime(env.Clock.Now()),
				OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}},
				Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
			status := p.Status
			if err := env.API.Create(ctx, p); err != nil {
				t.Fatal(err)
			}
			p.Status = status
			if err := env.API.Status().Update(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		rs.Status = appsv1.ReplicaSetStatus{Replicas: want, ReadyReplicas: want, AvailableReplicas: want, FullyLabeledReplicas: want,
			ObservedGeneration: rs.Generation}
		if err := env.API.Status().Update(ctx, rs); err != nil {
			t.Fatal(err)
		}
	}
}

// converge runs passes, settling the ReplicaSets after each, until a pass
// writes nothing and asks for no wake-up within a minute (the clock jumps
// to each wake-up). It fails the test on an error or after 40 passes.
func converge(t testing.TB, env *controllertest.Env, r *rollout.Reconciler, name string) {
	t.Helper()
	for range 40 {
		mark := len(env.Log())
		res, err := pass(r, name)
		if err != nil {
			t.Fatalf("pass: %v", err)
		}
		settle(t, env)
		if len(env.Since(mark)) > 0 {
			continue
		}
		if res.RequeueAfter <= 0 || res.RequeueAfter > time.Minute {
			return
		}
		env.Clock.Step(res.RequeueAfter)
	}
	t.Fatalf("no fixed point after 40 passes; last writes %v", env.Log()[max(len(env.Log())-10, 0):])
}

func getRollout(t testing.TB, env *controllertest.Env, name string) *rampv1.Rollout {
	t.Helper()
	ro := &rampv1.Rollout{}
	if err := env.API.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, ro); err != nil {
		t.Fatal(err)
	}
	return ro
}

// update changes the stored Rollout's spec as a user would (generation+1).
func update(t testing.TB, env *controllertest.Env, name string, change func(*rampv1.Rollout)) {
	t.Helper()
	ro := getRollout(t, env, name)
	change(ro)
	ro.Generation++
	if err := env.API.Update(context.Background(), ro); err != nil {
		t.Fatal(err)
	}
}

func replicaSets(t testing.TB, env *controllertest.Env) []appsv1.ReplicaSet {
	t.Helper()
	var rss appsv1.ReplicaSetList
	if err := env.API.List(context.Background(), &rss, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	return rss.Items
}

func analysisTemplate(name string) *rampv1.AnalysisTemplate {
	return &rampv1.AnalysisTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: rampv1.AnalysisTemplateSpec{Metrics: []rampv1.Metric{{Name: "m", Provider: rampv1.MetricProvider{Web: &rampv1.WebMetric{URL: "http://x"}}}}}}
}

func deployment(name string) *appsv1.Deployment {
	three := int32(3)
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Generation: 1},
		Spec: appsv1.DeploymentSpec{Replicas: &three, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1"}}}}}}
}

// ingress is an Ingress whose one rule sends / to Service svc.
func ingress(name, svc string) *networkingv1.Ingress {
	prefix := networkingv1.PathTypePrefix
	return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "web.example", IngressRuleValue: networkingv1.IngressRuleValue{
			HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &prefix,
				Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: svc, Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}}}
}
