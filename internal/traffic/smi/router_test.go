package smi

import (
	"context"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// cluster is a fake API server that serves TrafficSplit in version (none
// when version is ""), holding objs, and counts the writes it takes.
func cluster(version string, objs ...client.Object) (client.Client, *int) {
	gv := schema.GroupVersion{Group: splitGK.Group, Version: version}
	m := meta.NewDefaultRESTMapper([]schema.GroupVersion{gv})
	if version != "" {
		m.Add(gv.WithKind(splitGK.Kind), meta.RESTScopeNamespace)
	}
	writes := new(int)
	c := fake.NewClientBuilder().
		WithScheme(runtime.NewScheme()).
		WithRESTMapper(m).
		WithObjects(objs...).
		WithInterceptorFuncs(interceptor.Funcs{
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				*writes++
				return c.Create(ctx, obj, opts...)
			},
			Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
				*writes++
				return c.Update(ctx, obj, opts...)
			},
		}).
		Build()
	return c, writes
}

func TestSync(t *testing.T) {
	var reported []traffic.Write
	ctx := traffic.WithWrites(context.Background(), &reported)
	c, writes := cluster("v1alpha2")
	r := New(c)
	ro := rollout(rampv1.SMITrafficRouting{RootService: "web"})

	step := func(want traffic.Route, inForce bool, wantWrites int) {
		t.Helper()
		got, err := r.Sync(ctx, ro, want)
		if err != nil || got != inForce || *writes != wantWrites {
			t.Fatalf("Sync(canary %d): inForce=%v err=%v writes=%d, want inForce=%v writes=%d", want.Canary, got, err, *writes, inForce, wantWrites)
		}
	}
	step(traffic.Route{Canary: 0, Max: 100}, false, 1) // created
	step(traffic.Route{Canary: 0, Max: 100}, true, 1)
	step(traffic.Route{Canary: 40, Max: 100}, false, 2) // updated
	step(traffic.Route{Canary: 40, Max: 100}, true, 2)
	// An Event for the creation only, as upstream.
	if want := []traffic.Write{{Reason: "TrafficSplitCreated", Message: "TrafficSplit `web` created"}}; !reflect.DeepEqual(reported, want) {
		t.Errorf("reported %q, want %q", reported, want)
	}

	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(schema.GroupVersionKind{Group: "split.smi-spec.io", Version: "v1alpha2", Kind: "TrafficSplit"})
	if err := c.Get(ctx, client.ObjectKey{Namespace: "shop", Name: "web"}, got); err != nil {
		t.Fatalf("TrafficSplit in the served version: %v", err)
	}
	got.SetResourceVersion("")
	want := obj(t, `
apiVersion: split.smi-spec.io/v1alpha2
kind: TrafficSplit
metadata:
  name: web
  namespace: shop
  ownerReferences:
  - {apiVersion: argoproj.io/v1alpha1, kind: Rollout, name: web, uid: uid-web, controller: true, blockOwnerDeletion: true}
spec: {service: web, backends: [{service: web-canary, weight: 40}, {service: web-stable, weight: 60}]}
`)
	if g, w := toYAML(t, got), toYAML(t, want); g != w {
		t.Errorf("stored TrafficSplit\n%s\nwant\n%s", g, w)
	}
}

func TestSyncRefusesAForeignTrafficSplit(t *testing.T) {
	foreign := obj(t, `
apiVersion: split.smi-spec.io/v1alpha4
kind: TrafficSplit
metadata: {name: web, namespace: shop, ownerReferences: [{apiVersion: argoproj.io/v1alpha1, kind: Rollout, name: other, uid: uid-other, controller: true}]}
spec: {service: web-stable, backends: [{service: web-stable, weight: 100}]}
`)
	c, writes := cluster("v1alpha4", foreign)
	_, err := New(c).Sync(context.Background(), rollout(rampv1.SMITrafficRouting{}), traffic.Route{Canary: 10, Max: 100})
	checkErr(t, err, "TrafficSplit shop/web exists and is not controlled by Rollout web")
	if !traffic.IsConfigError(err) {
		t.Errorf("%v is not a ConfigError", err)
	}
	if *writes != 0 {
		t.Errorf("writes = %d, want none", *writes)
	}
}

func TestSyncWithoutTheCRD(t *testing.T) {
	c, _ := cluster("")
	_, err := New(c).Sync(context.Background(), rollout(rampv1.SMITrafficRouting{}), traffic.Route{Canary: 10, Max: 100})
	checkErr(t, err, "TrafficSplit.split.smi-spec.io is not served by this cluster: install the SMI TrafficSplit CRD")
	if !traffic.IsConfigError(err) {
		t.Errorf("%v is not a ConfigError", err)
	}
}
