package istio

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

const (
	httpVS = `
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: web, namespace: shop}
spec:
  hosts: [web]
  http:
  - name: primary
    route:
    - destination: {host: web, subset: stable}
      weight: 100
    - destination: {host: web, subset: canary}
      weight: 0`
	tcpVS = `
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: web-tcp, namespace: shop}
spec:
  hosts: [web]
  tcp:
  - match: [{port: 9000}]
    route:
    - destination: {host: web, subset: stable}
    - destination: {host: web, subset: canary}`
)

// world is a fake API server holding objs, counting the updates made.
func world(t *testing.T, updates *int, manifests ...string) client.Client {
	t.Helper()
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(VirtualServiceGVK, meta.RESTScopeNamespace)
	mapper.Add(DestinationRuleGVK, meta.RESTScopeNamespace)
	var objs []client.Object
	for _, m := range manifests {
		objs = append(objs, parse(t, m))
	}
	return fake.NewClientBuilder().WithScheme(runtime.NewScheme()).WithRESTMapper(mapper).WithObjects(objs...).
		WithInterceptorFuncs(interceptor.Funcs{Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			*updates++
			return c.Update(ctx, obj, opts...)
		}}).Build()
}

func subsetLevel(vss ...string) *rampv1.Rollout {
	var sel []rampv1.IstioVirtualService
	for _, name := range vss {
		s := rampv1.IstioVirtualService{Name: name}
		if name == "web-tcp" {
			s.TCPRoutes = []rampv1.TCPRoute{{Port: 9000}}
		}
		sel = append(sel, s)
	}
	return rollout(rampv1.IstioTrafficRouting{
		VirtualServices: sel,
		DestinationRule: &rampv1.IstioDestinationRule{Name: "web", CanarySubsetName: "canary", StableSubsetName: "stable", AdditionalSubsetNames: []string{"preview"}},
	}, "beta", "shadow")
}

func get(t *testing.T, c client.Client, gvk schema.GroupVersionKind, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := c.Get(context.Background(), types.NamespacedName{Namespace: "shop", Name: name}, u); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestSync(t *testing.T) {
	var reported []traffic.Write
	ctx := traffic.WithWrites(context.Background(), &reported)
	var updates int
	c := world(t, &updates, destinationRule, httpVS, tcpVS)
	r := New(c)
	ro := subsetLevel("web", "web-tcp")
	want := traffic.Route{Canary: 20, Max: 100, StableHash: "s1", CanaryHash: "c1", Headers: []rampv1.SetHeaderRoute{
		header("beta", rampv1.HeaderRoutingMatch{HeaderName: "x-beta", HeaderValue: &rampv1.StringMatch{Exact: "yes"}})},
		Mirrors: []rampv1.SetMirrorRoute{{Name: "shadow", Percentage: ptr[int32](50), Match: []rampv1.RouteMatch{{Path: &rampv1.StringMatch{Prefix: "/"}}}}},
	}

	inForce, err := r.Sync(ctx, ro, want)
	if err != nil || inForce {
		t.Fatalf("first Sync = %v, %v; want false, nil", inForce, err)
	}
	if updates != 3 {
		t.Errorf("first Sync made %d updates, want 3", updates)
	}
	wantReported := []traffic.Write{
		{Reason: "UpdatedDestinationRule", Message: "DestinationRule web subset updated (canary: c1, stable: s1)"},
		{Reason: "Updated VirtualService", Message: "VirtualService `web` set to desiredWeight '20'"},
		{Reason: "Updated VirtualService", Message: "VirtualService `web-tcp` set to desiredWeight '20'"},
	}
	if !reflect.DeepEqual(reported, wantReported) {
		t.Errorf("first Sync reported %q, want %q", reported, wantReported)
	}
	assertValue(t, spec(get(t, c, DestinationRuleGVK, "web"))["subsets"], `
- {name: stable, labels: {app: web, rollouts-pod-template-hash: s1}}
- {name: canary, labels: {app: web, rollouts-pod-template-hash: c1}}
- {name: preview, labels: {rollouts-pod-template-hash: s1}}
- {name: other, labels: {app: other}}`)
	assertValue(t, spec(get(t, c, VirtualServiceGVK, "web"))["http"], `
- name: beta
  match: [{headers: {x-beta: {exact: "yes"}}}]
  route: [{destination: {host: web, subset: canary}, weight: 100}]
- name: shadow
  match: [{uri: {prefix: /}}]
  route:
  - {destination: {host: web, subset: stable}, weight: 80}
  - {destination: {host: web, subset: canary}, weight: 20}
  mirror: {host: web, subset: canary}
  mirrorPercentage: {value: 50}
- name: primary
  route:
  - {destination: {host: web, subset: stable}, weight: 80}
  - {destination: {host: web, subset: canary}, weight: 20}`)
	assertValue(t, spec(get(t, c, VirtualServiceGVK, "web-tcp"))["tcp"], `
- match: [{port: 9000}]
  route:
  - {destination: {host: web, subset: stable}, weight: 80}
  - {destination: {host: web, subset: canary}, weight: 20}`)

	updates, reported = 0, nil
	inForce, err = r.Sync(ctx, ro, want)
	if err != nil || !inForce {
		t.Fatalf("second Sync = %v, %v; want true, nil", inForce, err)
	}
	if updates != 0 || len(reported) != 0 {
		t.Errorf("second Sync made %d updates and reported %q, want none", updates, reported)
	}
}

func TestSyncErrors(t *testing.T) {
	ctx := context.Background()
	var updates int
	c := world(t, &updates, destinationRule, httpVS, tcpVS)
	_, err := New(c).Sync(ctx, subsetLevel("web", "web-missing"), traffic.Route{Max: 100})
	if err == nil || !strings.Contains(err.Error(), "VirtualService shop/web-missing not found") {
		t.Errorf("missing VirtualService: err = %v", err)
	}
	want := traffic.Route{Max: 100, Headers: []rampv1.SetHeaderRoute{
		header("beta", rampv1.HeaderRoutingMatch{HeaderName: "x-beta", HeaderValue: &rampv1.StringMatch{Exact: "yes"}})}}
	_, err = New(c).Sync(ctx, subsetLevel("web-tcp"), want)
	if err == nil || !strings.Contains(err.Error(), "header and mirror routes need a VirtualService with a weighted http route") {
		t.Errorf("header route without an http route: err = %v", err)
	}
	ro := subsetLevel("web")
	ro.Spec.Strategy.Canary.TrafficRouting.Istio.DestinationRule.StableSubsetName = "gone"
	_, err = New(c).Sync(ctx, ro, traffic.Route{Max: 100})
	if err == nil || !strings.Contains(err.Error(), `DestinationRule shop/web: subset "gone" not found`) {
		t.Errorf("missing subset: err = %v", err)
	}
}
