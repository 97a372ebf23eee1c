package alb

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
	"github.com/ramp-rollouts/ramp/internal/traffic/objects"
)

// The annotations upstream writes for the Rollout "web" (fixtures_test.go)
// at 20% with managed routes h1 and h2, spelled as it spells them.
const (
	weightKey = "alb.ingress.kubernetes.io/actions.web-stable"
	weight20  = `{"Type":"forward","ForwardConfig":{"TargetGroups":[{"ServiceName":"web-canary","ServicePort":"80","Weight":20},{"ServiceName":"web-stable","ServicePort":"80","Weight":80}]}}`
	weight0   = `{"Type":"forward","ForwardConfig":{"TargetGroups":[{"ServiceName":"web-canary","ServicePort":"80","Weight":0},{"ServiceName":"web-stable","ServicePort":"80","Weight":100}]}}`
	toCanary  = `{"Type":"forward","ForwardConfig":{"TargetGroups":[{"ServiceName":"web-canary","ServicePort":"80","Weight":100}]}}`
	act1      = "alb.ingress.kubernetes.io/actions.h1"
	cond1     = "alb.ingress.kubernetes.io/conditions.h1"
	act2      = "alb.ingress.kubernetes.io/actions.h2"
	cond2     = "alb.ingress.kubernetes.io/conditions.h2"
	xIs1      = `[{"field":"http-header","httpHeaderConfig":{"httpHeaderName":"x","values":["1"]}}]`
	xIs2      = `[{"field":"http-header","httpHeaderConfig":{"httpHeaderName":"x","values":["2"]}}]`

	stablePath = `{path: /, pathType: Prefix, backend: {service: {name: web-stable, port: {name: use-annotation}}}}`
	otherPath  = `{path: /api, pathType: Prefix, backend: {service: {name: api, port: {number: 80}}}}`
)

// routePathYAML is the path upstream adds for header route name.
func routePathYAML(name string) string {
	return `{path: /*, pathType: ImplementationSpecific, backend: {service: {name: ` + name + `, port: {name: use-annotation}}}}`
}

// marks is the marker listing keys for the Rollout "web".
func marks(keys ...string) string {
	b, _ := json.Marshal(map[string][]string{"web": append([]string{}, keys...)})
	return string(b)
}

// exact is a header route matching header=value for each pair.
func exact(name string, pairs ...string) rampv1.SetHeaderRoute {
	h := rampv1.SetHeaderRoute{Name: name}
	for i := 0; i+1 < len(pairs); i += 2 {
		h.Match = append(h.Match, rampv1.HeaderRoutingMatch{HeaderName: pairs[i], HeaderValue: &rampv1.StringMatch{Exact: pairs[i+1]}})
	}
	return h
}

// ingressWith is the Ingress "web" with these annotations and rules, each
// rule a YAML flow list of paths.
func ingressWith(t *testing.T, ann map[string]string, rules ...string) *unstructured.Unstructured {
	t.Helper()
	var b strings.Builder
	b.WriteString("apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web, namespace: shop}\nspec:\n  ingressClassName: alb\n  rules:\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "  - http: {paths: %s}\n", r)
	}
	u := obj(t, b.String())
	u.SetAnnotations(ann)
	return u
}

func paths(ps ...string) string { return "[" + strings.Join(ps, ", ") + "]" }

// routed is rollout() with managedRoutes h1, h2.
func routed(mut ...func(*rampv1.ALBTrafficRouting)) *rampv1.Rollout {
	ro := rollout(mut...)
	ro.Spec.Strategy.Canary.TrafficRouting.ManagedRoutes = []rampv1.ManagedRoute{{Name: "h1"}, {Name: "h2"}}
	return ro
}

func TestApplyHeaderRoutes(t *testing.T) {
	atWeight := map[string]string{weightKey: weight20, rampv1.ManagedALBAnnotationsAnnotation: marks(weightKey)}
	h1On := map[string]string{weightKey: weight20, act1: toCanary, cond1: xIs1, rampv1.ManagedALBAnnotationsAnnotation: marks(weightKey, act1, cond1)}
	h2On := map[string]string{weightKey: weight20, act2: toCanary, cond2: xIs2, rampv1.ManagedALBAnnotationsAnnotation: marks(weightKey, act2, cond2)}
	both := map[string]string{weightKey: weight20, act1: toCanary, cond1: xIs1, act2: toCanary, cond2: xIs2,
		rampv1.ManagedALBAnnotationsAnnotation: marks(weightKey, act1, cond1, act2, cond2)}
	tests := []struct {
		name      string
		ann       map[string]string
		rules     []string
		headers   []rampv1.SetHeaderRoute
		wantAnn   map[string]string
		wantRules []string
		ch        changes
	}{{
		name:      "add: annotations, and the route's path first",
		ann:       atWeight,
		rules:     []string{paths(stablePath)},
		headers:   []rampv1.SetHeaderRoute{exact("h1", "x", "1")},
		wantAnn:   h1On,
		wantRules: []string{paths(routePathYAML("h1"), stablePath)},
		ch:        changes{headers: true},
	}, {
		name:      "in force: nothing changes",
		ann:       h1On,
		rules:     []string{paths(routePathYAML("h1"), stablePath)},
		headers:   []rampv1.SetHeaderRoute{exact("h1", "x", "1")},
		wantAnn:   h1On,
		wantRules: []string{paths(routePathYAML("h1"), stablePath)},
	}, {
		name:    "replace: new conditions, the path stays",
		ann:     h1On,
		rules:   []string{paths(routePathYAML("h1"), stablePath)},
		headers: []rampv1.SetHeaderRoute{exact("h1", "x", "2")},
		wantAnn: map[string]string{weightKey: weight20, act1: toCanary, cond1: xIs2,
			rampv1.ManagedALBAnnotationsAnnotation: marks(weightKey, act1, cond1)},
		wantRules: []string{paths(routePathYAML("h1"), stablePath)},
		ch:        changes{headers: true},
	}, {
		name:      "remove: annotations, marker entries and path go",
		ann:       h1On,
		rules:     []string{paths(routePathYAML("h1"), stablePath)},
		wantAnn:   atWeight,
		wantRules: []string{paths(stablePath)},
		ch:        changes{headers: true},
	}, {
		name:      "nothing to remove",
		ann:       atWeight,
		rules:     []string{paths(stablePath)},
		wantAnn:   atWeight,
		wantRules: []string{paths(stablePath)},
	}, {
		name:      "a second route: paths in managedRoutes order, marker in order of writing",
		ann:       h2On,
		rules:     []string{paths(routePathYAML("h2"), stablePath)},
		headers:   []rampv1.SetHeaderRoute{exact("h1", "x", "1"), exact("h2", "x", "2")},
		wantAnn:   map[string]string{weightKey: weight20, act1: toCanary, cond1: xIs1, act2: toCanary, cond2: xIs2, rampv1.ManagedALBAnnotationsAnnotation: marks(weightKey, act2, cond2, act1, cond1)},
		wantRules: []string{paths(routePathYAML("h1"), routePathYAML("h2"), stablePath)},
		ch:        changes{headers: true},
	}, {
		name:      "one of two removed",
		ann:       both,
		rules:     []string{paths(routePathYAML("h1"), routePathYAML("h2"), stablePath)},
		headers:   []rampv1.SetHeaderRoute{exact("h2", "x", "2")},
		wantAnn:   h2On,
		wantRules: []string{paths(routePathYAML("h2"), stablePath)},
		ch:        changes{headers: true},
	}, {
		name:      "every rule gets the path; other paths keep their order",
		ann:       atWeight,
		rules:     []string{paths(stablePath, otherPath), paths(otherPath, stablePath)},
		headers:   []rampv1.SetHeaderRoute{exact("h1", "x", "1")},
		wantAnn:   h1On,
		wantRules: []string{paths(routePathYAML("h1"), stablePath, otherPath), paths(routePathYAML("h1"), otherPath, stablePath)},
		ch:        changes{headers: true},
	}, {
		name:      "a rule already routing to the route: no path added, but sorted first",
		ann:       atWeight,
		rules:     []string{paths(stablePath, routePathYAML("h1")), paths(otherPath)},
		headers:   []rampv1.SetHeaderRoute{exact("h1", "x", "1")},
		wantAnn:   h1On,
		wantRules: []string{paths(routePathYAML("h1"), stablePath), paths(otherPath)},
		ch:        changes{headers: true},
	}, {
		name:      "removal at the end with the weight back to stable: one write",
		ann:       both,
		rules:     []string{paths(routePathYAML("h1"), routePathYAML("h2"), stablePath)},
		wantAnn:   map[string]string{weightKey: weight0, rampv1.ManagedALBAnnotationsAnnotation: marks(weightKey)},
		wantRules: []string{paths(stablePath)},
		ch:        changes{weight: true, headers: true},
	}, {
		name:      "another Rollout's route of the same name is left alone",
		ann:       map[string]string{weightKey: weight20, act1: toCanary, cond1: xIs1, rampv1.ManagedALBAnnotationsAnnotation: `{"api":["` + act1 + `","` + cond1 + `"],"web":["` + weightKey + `"]}`},
		rules:     []string{paths(routePathYAML("h1"), stablePath)},
		wantAnn:   map[string]string{weightKey: weight20, act1: toCanary, cond1: xIs1, rampv1.ManagedALBAnnotationsAnnotation: `{"api":["` + act1 + `","` + cond1 + `"],"web":["` + weightKey + `"]}`},
		wantRules: []string{paths(routePathYAML("h1"), stablePath)},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := ingressWith(t, tt.ann, tt.rules...)
			want := ingressWith(t, tt.wantAnn, tt.wantRules...)
			if len(tt.wantAnn) == 0 {
				want.SetAnnotations(nil)
			}
			canary := int32(20)
			if tt.wantAnn[weightKey] == weight0 {
				canary = 0
			}
			ch, err := newAction(routed()).apply(u, traffic.Route{Canary: canary, Max: 100, Headers: tt.headers})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(u.GetAnnotations(), want.GetAnnotations()) {
				t.Errorf("annotations:\n%v\nwant\n%v", u.GetAnnotations(), want.GetAnnotations())
			}
			if !apiequality.Semantic.DeepEqual(u.Object["spec"], want.Object["spec"]) {
				got, _ := json.Marshal(u.Object["spec"])
				exp, _ := json.Marshal(want.Object["spec"])
				t.Errorf("spec:\n%s\nwant\n%s", got, exp)
			}
			if ch != tt.ch {
				t.Errorf("changes = %+v, want %+v", ch, tt.ch)
			}
		})
	}
}

func TestApplyHeaderRouteErrors(t *testing.T) {
	u := ingressWith(t, map[string]string{rampv1.ManagedALBAnnotationsAnnotation: `{"api":["` + cond1 + `"]}`}, paths(stablePath))
	_, err := newAction(routed()).apply(u, traffic.Route{Canary: 20, Max: 100, Headers: []rampv1.SetHeaderRoute{exact("h1", "x", "1")}})
	if err == nil || !strings.Contains(err.Error(), cond1+" is managed by Rollout api") {
		t.Errorf("claiming another Rollout's route: %v", err)
	}
}

func TestHeaderValues(t *testing.T) {
	sticky := func(a *rampv1.ALBTrafficRouting) {
		a.StickinessConfig = &rampv1.StickinessConfig{Enabled: true, DurationSeconds: 60}
		a.ServicePort, a.AnnotationPrefix = 8080, "custom.example.com"
	}
	act := newAction(routed(sticky))
	if a, c := act.headerKeys("h1"); a != "custom.example.com/actions.h1" || c != "custom.example.com/conditions.h1" {
		t.Errorf("headerKeys = %s, %s", a, c)
	}
	got, err := act.headerAction()
	if want := `{"Type":"forward","ForwardConfig":{"TargetGroups":[{"ServiceName":"web-canary","ServicePort":"8080","Weight":100}],` +
		`"TargetGroupStickinessConfig":{"Enabled":true,"DurationSeconds":60}}}`; err != nil || got != want {
		t.Errorf("headerAction = %s, %v\nwant %s", got, err, want)
	}
	for _, tt := range []struct {
		h         rampv1.SetHeaderRoute
		want, err string
	}{
		{h: exact("h", "Custom-Header", "Mozilla*"),
			want: `[{"field":"http-header","httpHeaderConfig":{"httpHeaderName":"Custom-Header","values":["Mozilla*"]}}]`},
		{h: exact("h", "a", "1", "b", "2", "a", "3"), // values of one header merged, as upstream
			want: `[{"field":"http-header","httpHeaderConfig":{"httpHeaderName":"a","values":["1","3"]}},` +
				`{"field":"http-header","httpHeaderConfig":{"httpHeaderName":"b","values":["2"]}}]`},
		{h: rampv1.SetHeaderRoute{Name: "h", Match: []rampv1.HeaderRoutingMatch{{HeaderName: "a", HeaderValue: &rampv1.StringMatch{Regex: "1.*"}}}},
			err: `setHeaderRoute "h": header "a": alb matches exact values only`},
		{h: rampv1.SetHeaderRoute{Name: "h", Match: []rampv1.HeaderRoutingMatch{{HeaderName: "a"}}},
			err: `alb matches exact values only`},
		{h: exact("h", "", "1"), err: `setHeaderRoute "h": headerName required`},
	} {
		got, err := conditions(tt.h)
		if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) || got != tt.want {
			t.Errorf("conditions(%+v) = %s, %v; want %s, %q", tt.h, got, err, tt.want, tt.err)
		}
	}
}

func TestWrote(t *testing.T) {
	w := traffic.Route{Canary: 20, Max: 100, Headers: []rampv1.SetHeaderRoute{{Name: "h1"}, {Name: "h2"}}}
	for _, tt := range []struct {
		want traffic.Route
		ch   changes
		msg  string
	}{
		{traffic.Route{Canary: 20, Max: 100}, changes{weight: true}, "Updating Ingress `web` to desiredWeight '20'"},
		{w, changes{headers: true}, "Updating Ingress `web` to headerRoute 'h1', 'h2'"},
		{traffic.Route{Max: 100}, changes{headers: true}, "Updating Ingress `web` removing managed routes"},
		{traffic.Route{Max: 100}, changes{weight: true, headers: true}, "Updating Ingress `web` to desiredWeight '0' and removing managed routes"},
	} {
		if got := wrote("web", tt.want, tt.ch); got != (traffic.Write{Reason: "PatchingALBIngress", Message: tt.msg}) {
			t.Errorf("wrote(%+v) = %q, want %q", tt.ch, got.Message, tt.msg)
		}
	}
}

// TestSyncHeaderRouteIngresses walks a header route through two Ingresses:
// each gets it in one write, then loses it.
func TestSyncHeaderRouteIngresses(t *testing.T) {
	var reported []traffic.Write
	ctx := traffic.WithWrites(context.Background(), &reported)
	var writes int
	one, two := ingressWith(t, nil, paths(stablePath)), ingressWith(t, nil, paths(stablePath), paths(otherPath, stablePath))
	two.SetName("web-2")
	c := newClient(t, &writes, one, two)
	r := New(c)
	ro := routed(func(a *rampv1.ALBTrafficRouting) { a.Ingress, a.Ingresses = "", []string{"web", "web-2"} })
	read := func(name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(objects.IngressGVK)
		if err := c.Get(ctx, types.NamespacedName{Namespace: "shop", Name: name}, u); err != nil {
			t.Fatal(err)
		}
		return u
	}
	sync := func(want traffic.Route, writesWanted int) {
		t.Helper()
		writes, reported = 0, nil
		if inForce, err := r.Sync(ctx, ro, want); err != nil || inForce != (writesWanted == 0) || writes != writesWanted {
			t.Fatalf("Sync(%+v) = %v, %v with %d writes, want %d", want, inForce, err, writes, writesWanted)
		}
		if inForce, err := r.Sync(ctx, ro, want); err != nil || !inForce {
			t.Fatalf("Sync(%+v) again = %v, %v: not in force", want, inForce, err)
		}
	}

	sync(traffic.Route{Canary: 20, Max: 100}, 2)
	on := traffic.Route{Canary: 20, Max: 100, Headers: []rampv1.SetHeaderRoute{exact("h1", "x", "1")}}
	sync(on, 2)
	if want := []traffic.Write{
		{Reason: "PatchingALBIngress", Message: "Updating Ingress `web` to headerRoute 'h1'"},
		{Reason: "PatchingALBIngress", Message: "Updating Ingress `web-2` to headerRoute 'h1'"},
	}; !reflect.DeepEqual(reported, want) {
		t.Errorf("reported %q, want %q", reported, want)
	}
	for name, rules := range map[string][]string{
		"web":   {paths(routePathYAML("h1"), stablePath)},
		"web-2": {paths(routePathYAML("h1"), stablePath), paths(routePathYAML("h1"), otherPath, stablePath)},
	} {
		u := read(name)
		want := ingressWith(t, h1On(), rules...)
		if !reflect.DeepEqual(u.GetAnnotations(), want.GetAnnotations()) || !apiequality.Semantic.DeepEqual(u.Object["spec"], want.Object["spec"]) {
			t.Errorf("%s with the header route: %v %v", name, u.GetAnnotations(), u.Object["spec"])
		}
	}

	sync(traffic.Route{Canary: 20, Max: 100}, 2)
	for name, rules := range map[string][]string{
		"web":   {paths(stablePath)},
		"web-2": {paths(stablePath), paths(otherPath, stablePath)},
	} {
		u := read(name)
		want := ingressWith(t, map[string]string{weightKey: weight20, rampv1.ManagedALBAnnotationsAnnotation: marks(weightKey)}, rules...)
		if !reflect.DeepEqual(u.GetAnnotations(), want.GetAnnotations()) || !apiequality.Semantic.DeepEqual(u.Object["spec"], want.Object["spec"]) {
			t.Errorf("%s after removal: %v %v", name, u.GetAnnotations(), u.Object["spec"])
		}
	}
}

func h1On() map[string]string {
	return map[string]string{weightKey: weight20, act1: toCanary, cond1: xIs1, rampv1.ManagedALBAnnotationsAnnotation: marks(weightKey, act1, cond1)}
}
