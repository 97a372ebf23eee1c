package alb

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
	"github.com/ramp-rollouts/ramp/internal/traffic/objects"
)

func newClient(t *testing.T, writes *int, objs ...client.Object) client.Client {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	count := func() { *writes++ }
	return fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.CreateOption) error {
			count()
			return c.Create(ctx, o, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.UpdateOption) error {
			count()
			return c.Update(ctx, o, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, o client.Object, p client.Patch, opts ...client.PatchOption) error {
			count()
			return c.Patch(ctx, o, p, opts...)
		},
	}).Build()
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		alb  func(*rampv1.ALBTrafficRouting)
		ro   func(*rampv1.Rollout)
		err  string
	}{
		{name: "valid"},
		{name: "ingresses", alb: func(a *rampv1.ALBTrafficRouting) { a.Ingress, a.Ingresses = "", []string{"a", "b"} }},
		{name: "no ingress", alb: func(a *rampv1.ALBTrafficRouting) { a.Ingress = "" },
			err: "spec.strategy.canary.trafficRouting.alb: ingress or ingresses required"},
		{name: "empty ingresses entry", alb: func(a *rampv1.ALBTrafficRouting) { a.Ingresses = []string{""} },
			err: "spec.strategy.canary.trafficRouting.alb.ingresses[0]: empty name"},
		{name: "no port", alb: func(a *rampv1.ALBTrafficRouting) { a.ServicePort = 0 },
			err: "spec.strategy.canary.trafficRouting.alb.servicePort: must be 1-65535, got 0"},
		{name: "stickiness too long", alb: func(a *rampv1.ALBTrafficRouting) {
			a.StickinessConfig = &rampv1.StickinessConfig{Enabled: true, DurationSeconds: 604801}
		}, err: "spec.strategy.canary.trafficRouting.alb.stickinessConfig.durationSeconds"},
		{name: "no alb", ro: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.TrafficRouting.ALB = nil },
			err: "spec.strategy.canary.trafficRouting.alb: not set"},
		{name: "no canary Service", ro: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.CanaryService = "" },
			err: "spec.strategy.canary.canaryService: required"},
		{name: "no stable Service", ro: func(ro *rampv1.Rollout) { ro.Spec.Strategy.Canary.StableService = "" },
			err: "spec.strategy.canary.stableService: required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ro *rampv1.Rollout
			if tt.alb != nil {
				ro = rollout(tt.alb)
			} else {
				ro = rollout()
			}
			if tt.ro != nil {
				tt.ro(ro)
			}
			err := New(nil).Check(ro)
			if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Check = %v, want %q", err, tt.err)
			}
		})
	}
}

func TestRefs(t *testing.T) {
	refs := New(nil).Refs(rollout(func(a *rampv1.ALBTrafficRouting) { a.Ingresses = []string{"web", "api"} }))
	if len(refs) != 2 || refs[0].Name != "web" || refs[1].Name != "api" || refs[1].Namespace != "shop" || refs[1].GVK != objects.IngressGVK {
		t.Errorf("Refs = %+v", refs)
	}
}

func TestCheckRoute(t *testing.T) {
	for _, tt := range []struct {
		want traffic.Route
		err  string
	}{
		{want: traffic.Route{Canary: 10, Max: 100}},
		{want: traffic.Route{Canary: 10, Max: 0}, err: "out of range"},
		{want: traffic.Route{Canary: 10, Max: 1000}, err: "at most 999"},
		{want: traffic.Route{Max: 100, Headers: []rampv1.SetHeaderRoute{{Name: "h", Match: []rampv1.HeaderRoutingMatch{
			{HeaderName: "x", HeaderValue: &rampv1.StringMatch{Exact: "1"}}}}}}},
		{want: traffic.Route{Max: 100, Headers: []rampv1.SetHeaderRoute{{Name: "h", Match: []rampv1.HeaderRoutingMatch{
			{HeaderName: "x", HeaderValue: &rampv1.StringMatch{Prefix: "1"}}}}}}, err: `header "x": alb matches exact values only`},
		{want: traffic.Route{Max: 100, Mirrors: []rampv1.SetMirrorRoute{{Name: "m"}}}, err: "cannot mirror"},
	} {
		err := checkRoute(tt.want)
		if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("checkRoute(%+v) = %v, want %q", tt.want, err, tt.err)
		}
	}
}

func TestSync(t *testing.T) {
	var reported []traffic.Write
	ctx := traffic.WithWrites(context.Background(), &reported)
	var writes int
	c := newClient(t, &writes, obj(t, ingressYAML))
	r := New(c)
	ro := rollout()
	want := traffic.Route{Canary: 20, Max: 100}

	if inForce, err := r.Sync(ctx, ro, want); err != nil || inForce || writes != 1 {
		t.Fatalf("first Sync = %v, %v with %d writes; want not in force after one write", inForce, err, writes)
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(objects.IngressGVK)
	if err := c.Get(ctx, types.NamespacedName{Namespace: "shop", Name: "web"}, u); err != nil {
		t.Fatal(err)
	}
	ann := u.GetAnnotations()
	if !sameJSON(ann["alb.ingress.kubernetes.io/actions.web-stable"],
		`{"Type":"forward","ForwardConfig":{"TargetGroups":[{"ServiceName":"web-canary","ServicePort":"80","Weight":20},{"ServiceName":"web-stable","ServicePort":"80","Weight":80}]}}`) ||
		ann[rampv1.ManagedALBAnnotationsAnnotation] != `{"web":["alb.ingress.kubernetes.io/actions.web-stable"]}` ||
		ann["alb.ingress.kubernetes.io/scheme"] != "internet-facing" {
		t.Errorf("annotations after Sync: %v", ann)
	}

	if want := []traffic.Write{{Reason: "PatchingALBIngress", Message: "Updating Ingress `web` to desiredWeight '20'"}}; !reflect.DeepEqual(reported, want) {
		t.Errorf("first Sync reported %q, want %q", reported, want)
	}

	writes, reported = 0, nil
	if inForce, err := r.Sync(ctx, ro, want); err != nil || !inForce || writes != 0 || len(reported) != 0 {
		t.Fatalf("second Sync = %v, %v with %d writes, reported %q; want in force without writes", inForce, err, writes, reported)
	}
	if inForce, err := r.Sync(ctx, ro, traffic.Route{Canary: 50, Max: 100}); err != nil || inForce || writes != 1 {
		t.Fatalf("Sync of a new weight = %v, %v with %d writes", inForce, err, writes)
	}
}

func TestSyncErrors(t *testing.T) {
	ctx := context.Background()
	var writes int
	_, err := New(newClient(t, &writes)).Sync(ctx, rollout(), traffic.Route{Max: 100})
	if err == nil || err.Error() != "Ingress shop/web not found" || !traffic.IsConfigError(err) {
		t.Errorf("Sync without the Ingress: %v", err)
	}

	r := New(newClient(t, &writes, obj(t, ingressYAML)))
	_, err = r.Sync(ctx, rollout(func(a *rampv1.ALBTrafficRouting) { a.RootService = "web" }), traffic.Route{Max: 100})
	if err == nil || err.Error() != "ingress shop/web has no rule with backend service web and port name use-annotation" || !traffic.IsConfigError(err) {
		t.Errorf("Sync without a use-annotation rule: %v", err)
	}
	if _, err := r.Sync(ctx, rollout(), traffic.Route{Max: 100, Mirrors: []rampv1.SetMirrorRoute{{Name: "m"}}}); !traffic.IsConfigError(err) {
		t.Errorf("Sync with a mirror route passed")
	}
	if writes != 0 {
		t.Errorf("%d writes on errors", writes)
	}
}
