package gatewayapi

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/ramp-rollouts/ramp/internal/traffic"
)

func TestSync(t *testing.T) {
	ctx := context.Background()
	writes := 0
	static := route(t, staticRule)
	static.SetName("static")
	c := fake.NewClientBuilder().
		WithScheme(runtime.NewScheme()).
		WithObjects(route(t, weightedRule+staticRule), static).
		WithInterceptorFuncs(interceptor.Funcs{Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			writes++
			return c.Update(ctx, obj, opts...)
		}}).
		Build()
	r := New(c)
	ro := rollout(`{"httpRoute": "web"}`)
	want := traffic.Route{Canary: 30, Max: 100}

	inForce, err := r.Sync(ctx, ro, want)
	if err != nil || inForce || writes != 1 {
		t.Fatalf("first Sync: inForce=%v err=%v writes=%d, want a write and not in force", inForce, err, writes)
	}
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(httpRouteGVK)
	if err := c.Get(ctx, client.ObjectKey{Namespace: "shop", Name: "web"}, got); err != nil {
		t.Fatal(err)
	}
	if g, w := toYAML(t, withoutMeta(got)), toYAML(t, withoutMeta(route(t, weighted30+staticRule))); g != w {
		t.Fatalf("stored route\n%s\nwant\n%s", g, w)
	}

	inForce, err = r.Sync(ctx, ro, want)
	if err != nil || !inForce || writes != 1 {
		t.Fatalf("second Sync: inForce=%v err=%v writes=%d, want in force without a write", inForce, err, writes)
	}

	_, err = r.Sync(ctx, rollout(`{"httpRoutes": [{"name": "web"}, {"name": "missing"}]}`), want)
	checkErr(t, err, "HTTPRoute shop/missing not found")
	if !traffic.IsConfigError(err) {
		t.Errorf("%v is not a ConfigError", err)
	}
	_, err = r.Sync(ctx, rollout(`{"httpRoute": "static"}`), want)
	checkErr(t, err, `HTTPRoute shop/static: no rule in spec.rules has backendRefs to both Service "web-canary" and Service "web-stable"`)
	if !traffic.IsConfigError(err) {
		t.Errorf("%v is not a ConfigError", err)
	}
	_, err = r.Sync(ctx, rollout(`{"httpRoute": `), want)
	checkErr(t, err, `plugins["argoproj-labs/gatewayAPI"]: invalid JSON`)
	if !traffic.IsConfigError(err) {
		t.Errorf("%v is not a ConfigError", err)
	}
	if writes != 1 {
		t.Errorf("writes = %d after failed Syncs, want 1", writes)
	}
}

// withoutMeta drops the metadata the API server (or the fake) sets.
func withoutMeta(u *unstructured.Unstructured) *unstructured.Unstructured {
	u = u.DeepCopy()
	u.SetResourceVersion("")
	return u
}
