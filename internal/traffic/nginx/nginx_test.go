package nginx

import (
	"context"
	"reflect"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
	"github.com/ramp-rollouts/ramp/internal/traffic/objects"
)

// writes counts the writes a fake client receives.
type writes struct{ create, update, delete int }

func newClient(t *testing.T, w *writes, objs ...client.Object) client.Client {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.CreateOption) error {
			w.create++
			return c.Create(ctx, o, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.UpdateOption) error {
			w.update++
			return c.Update(ctx, o, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.DeleteOption) error {
			w.delete++
			return c.Delete(ctx, o, opts...)
		},
	}).Build()
}

func getCanary(t *testing.T, c client.Client, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(objects.IngressGVK)
	if err := c.Get(context.Background(), types.NamespacedName{Namespace: "shop", Name: name}, u); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestSync(t *testing.T) {
	var reported []traffic.Write
	ctx := traffic.WithWrites(context.Background(), &reported)
	var w writes
	c := newClient(t, &w, obj(t, stableIngressYAML))
	r := New(c)
	ro := rollout()
	want := traffic.Route{Canary: 10, Max: 100}

	inForce, err := r.Sync(ctx, ro, want)
	if err != nil || inForce || w.create != 1 || w.update != 0 {
		t.Fatalf("first Sync = %v, %v with %+v; want not in force after one create", inForce, err, w)
	}
	canary := getCanary(t, c, "web-web-canary")
	if canary.GetAnnotations()["nginx.ingress.kubernetes.io/canary-weight"] != "10" || !controlledBy(canary, ro) {
		t.Fatalf("created canary Ingress: %v", canary.Object)
	}
	if want := []traffic.Write{{Reason: "CreatingCanaryIngress", Message: "Creating canary ingress `web-web-canary` with weight `10`"}}; !reflect.DeepEqual(reported, want) {
		t.Errorf("first Sync reported %q, want %q", reported, want)
	}

	w, reported = writes{}, nil
	if inForce, err := r.Sync(ctx, ro, want); err != nil || !inForce || w != (writes{}) || len(reported) != 0 {
		t.Fatalf("second Sync = %v, %v with %+v, reported %q; want in force without writes", inForce, err, w, reported)
	}

	// Someone annotates the canary Ingress; a new weight and a header route
	// are written around that annotation.
	canary.SetAnnotations(map[string]string{"example.com/owner": "team-shop", "nginx.ingress.kubernetes.io/canary-weight": "99"})
	if err := c.Update(ctx, canary); err != nil {
		t.Fatal(err)
	}
	want = traffic.Route{Canary: 40, Max: 100, Headers: []rampv1.SetHeaderRoute{headerRoute("X-Canary", rampv1.StringMatch{Exact: "yes"})}}
	w = writes{}
	if inForce, err := r.Sync(ctx, ro, want); err != nil || inForce || w.update != 1 {
		t.Fatalf("Sync after a change = %v, %v with %+v; want one update", inForce, err, w)
	}
	if want := []traffic.Write{{Reason: "PatchingCanaryIngress", Message: "Updating Ingress `web-web-canary` to desiredWeight '40'"}}; !reflect.DeepEqual(reported, want) {
		t.Errorf("Sync after a change reported %q, want %q", reported, want)
	}
	got := getCanary(t, c, "web-web-canary").GetAnnotations()
	for k, v := range map[string]string{
		"example.com/owner":                                  "team-shop",
		"nginx.ingress.kubernetes.io/canary":                 "true",
		"nginx.ingress.kubernetes.io/canary-weight":          "40",
		"nginx.ingress.kubernetes.io/canary-by-header":       "X-Canary",
		"nginx.ingress.kubernetes.io/canary-by-header-value": "yes",
	} {
		if got[k] != v {
			t.Errorf("annotation %s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	w = writes{}
	if inForce, err := r.Sync(ctx, ro, want); err != nil || !inForce || w != (writes{}) {
		t.Fatalf("Sync again = %v, %v with %+v; want in force without writes", inForce, err, w)
	}

	// The header route ends: its annotations go.
	want.Headers = nil
	if _, err := r.Sync(ctx, ro, want); err != nil {
		t.Fatal(err)
	}
	got = getCanary(t, c, "web-web-canary").GetAnnotations()
	if _, ok := got["nginx.ingress.kubernetes.io/canary-by-header"]; ok || got["example.com/owner"] != "team-shop" {
		t.Errorf("annotations after the header route = %v", got)
	}
}

func TestSyncErrors(t *testing.T) {
	ctx := context.Background()
	h := headerRoute("X", rampv1.StringMatch{Exact: "a"})

	var w writes
	r := New(newClient(t, &w))
	_, err := r.Sync(ctx, rollout(), traffic.Route{Canary: 10, Max: 100})
	if err == nil || err.Error() != "Ingress shop/web not found" || !traffic.IsConfigError(err) {
		t.Errorf("Sync without the stable Ingress: %v", err)
	}

	r = New(newClient(t, &w, obj(t, stableIngressYAML)))
	if _, err := r.Sync(ctx, rollout(), traffic.Route{Max: 100, Headers: []rampv1.SetHeaderRoute{h, h}}); !traffic.IsConfigError(err) {
		t.Errorf("Sync with two header routes passed")
	}
	if _, err := r.Sync(ctx, rollout(func(n *rampv1.NginxTrafficRouting) { n.StableIngress = "" }), traffic.Route{Max: 100}); err == nil ||
		!strings.Contains(err.Error(), "stableIngress or stableIngresses required") {
		t.Errorf("Sync with an invalid configuration: %v", err)
	}

	// A canary Ingress of another owner is never taken over.
	foreign := obj(t, `
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web-web-canary, namespace: shop}
spec: {defaultBackend: {service: {name: other, port: {number: 80}}}}
`)
	r = New(newClient(t, &w, obj(t, stableIngressYAML), foreign))
	_, err = r.Sync(ctx, rollout(), traffic.Route{Max: 100})
	if err == nil || err.Error() != "Ingress shop/web-web-canary exists and is not controlled by Rollout web" || !traffic.IsConfigError(err) {
		t.Errorf("Sync over a foreign Ingress: %v", err)
	}
}

func TestCleanup(t *testing.T) {
	ctx := context.Background()
	var w writes
	c := newClient(t, &w, obj(t, stableIngressYAML))
	r := New(c)
	ro := rollout()
	if _, err := r.Sync(ctx, ro, traffic.Route{Max: 100}); err != nil {
		t.Fatal(err)
	}
	if err := r.Cleanup(ctx, ro); err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(objects.IngressGVK)
	if err := c.Get(ctx, types.NamespacedName{Namespace: "shop", Name: "web-web-canary"}, u); !apierrors.IsNotFound(err) {
		t.Errorf("canary Ingress after Cleanup: %v", err)
	}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "shop", Name: "web"}, u); err != nil {
		t.Errorf("stable Ingress after Cleanup: %v", err)
	}
	// Gone already: nothing to do.
	w = writes{}
	if err := r.Cleanup(ctx, ro); err != nil || w.delete != 0 {
		t.Errorf("second Cleanup = %v with %+v", err, w)
	}

	// Not controlled by the Rollout: left alone.
	foreign := obj(t, `
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web-web-canary, namespace: shop}
spec: {defaultBackend: {service: {name: other, port: {number: 80}}}}
`)
	w = writes{}
	if err := New(newClient(t, &w, foreign)).Cleanup(ctx, ro); err != nil || w.delete != 0 {
		t.Errorf("Cleanup of a foreign Ingress = %v with %+v", err, w)
	}
}

func TestSyncSeveralStableIngresses(t *testing.T) {
	ctx := context.Background()
	api := obj(t, stableIngressYAML)
	api.SetName("api")
	var w writes
	c := newClient(t, &w, obj(t, stableIngressYAML), api)
	ro := rollout(func(n *rampv1.NginxTrafficRouting) { n.StableIngress, n.StableIngresses = "", []string{"web", "api"} })
	if refs := New(c).Refs(ro); len(refs) != 2 || refs[1].Name != "api" || refs[1].GVK != objects.IngressGVK {
		t.Errorf("Refs = %+v", refs)
	}
	if inForce, err := New(c).Sync(ctx, ro, traffic.Route{Canary: 1, Max: 100}); err != nil || inForce || w.create != 2 {
		t.Fatalf("Sync = %v, %v with %+v", inForce, err, w)
	}
	getCanary(t, c, "web-web-canary")
	getCanary(t, c, "web-api-canary")
	if err := New(c).Cleanup(ctx, ro); err != nil || w.delete != 2 {
		t.Errorf("Cleanup = %v with %+v", err, w)
	}
}

func TestSyncCacheBehind(t *testing.T) {
	// The cache does not show the canary Ingress created a moment ago: the
	// create fails with AlreadyExists, which is not an error.
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(obj(t, stableIngressYAML)).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.CreateOption) error {
			return apierrors.NewAlreadyExists(schema.GroupResource{Group: "networking.k8s.io", Resource: "ingresses"}, o.GetName())
		},
	}).Build()
	if inForce, err := New(c).Sync(context.Background(), rollout(), traffic.Route{Max: 100}); err != nil || inForce {
		t.Errorf("Sync = %v, %v; want not in force, no error", inForce, err)
	}
}

func TestSyncDeleting(t *testing.T) {
	// A Rollout being deleted gets its canary put back on stable but no new
	// canary Ingress.
	ctx := context.Background()
	var w writes
	c := newClient(t, &w, obj(t, stableIngressYAML))
	ro := rollout()
	now := metav1.Now()
	ro.DeletionTimestamp = &now
	if inForce, err := New(c).Sync(ctx, ro, traffic.Route{Max: 100}); err != nil || !inForce || w != (writes{}) {
		t.Fatalf("Sync = %v, %v with %+v; want in force without writes", inForce, err, w)
	}
	ro.DeletionTimestamp = nil
	if _, err := New(c).Sync(ctx, ro, traffic.Route{Canary: 50, Max: 100}); err != nil {
		t.Fatal(err)
	}
	ro.DeletionTimestamp = &now
	w = writes{}
	if inForce, err := New(c).Sync(ctx, ro, traffic.Route{Max: 100}); err != nil || inForce || w.update != 1 {
		t.Fatalf("Sync = %v, %v with %+v; want one update", inForce, err, w)
	}
	if got := getCanary(t, c, "web-web-canary").GetAnnotations()["nginx.ingress.kubernetes.io/canary-weight"]; got != "0" {
		t.Errorf("canary-weight = %q, want 0", got)
	}
}
