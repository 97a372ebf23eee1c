package gatewayapi

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// route is the HTTPRoute shop/web with the given spec.rules (YAML),
// numbers decoded as int64 as the API server hands them out.
func route(t *testing.T, rules string) *unstructured.Unstructured {
	t.Helper()
	doc := `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: shop, annotations: {team: shop}}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  hostnames: [shop.example.com]
  rules:
` + indent(rules, "    ")
	j, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(j); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return u
}

func indent(s, by string) string {
	lines := strings.Split(strings.Trim(s, "\n"), "\n")
	for i := range lines {
		lines[i] = by + lines[i]
	}
	return strings.Join(lines, "\n") + "\n"
}

// weightedRule routes / and GET /api to stable and canary; staticRule is a
// rule the router must never touch.
const (
	weightedRule = `
- matches:
  - path: {type: PathPrefix, value: /}
  - path: {type: PathPrefix, value: /api}
    method: GET
  backendRefs:
  - {group: "", kind: Service, name: web-stable, port: 80, weight: 100}
  - {group: "", kind: Service, name: web-canary, port: 80, weight: 0}
`
	weighted30 = `
- matches:
  - path: {type: PathPrefix, value: /}
  - path: {type: PathPrefix, value: /api}
    method: GET
  backendRefs:
  - {group: "", kind: Service, name: web-stable, port: 80, weight: 70}
  - {group: "", kind: Service, name: web-canary, port: 80, weight: 30}
`
	staticRule = `
- name: static
  matches: [{path: {type: PathPrefix, value: /static}}]
  filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /}}}]
  backendRefs: [{name: static, port: 8080}]
`
	headerRule30 = `
- name: header
  matches:
  - path: {type: PathPrefix, value: /}
    headers: [{name: x-canary, type: Exact, value: "on"}, {name: x-user, type: RegularExpression, value: '^beta\..*'}]
  - path: {type: PathPrefix, value: /api}
    method: GET
    headers: [{name: x-canary, type: Exact, value: "on"}, {name: x-user, type: RegularExpression, value: '^beta\..*'}]
  backendRefs: [{group: "", kind: Service, name: web-canary, port: 80, weight: 1}]
`
	mirrorRule30 = `
- name: mirror
  matches:
  - path: {type: Exact, value: /checkout}
    method: POST
  - path: {type: RegularExpression, value: /cart/.*}
    headers: [{name: x-debug, type: Exact, value: "1"}]
  backendRefs:
  - {group: "", kind: Service, name: web-stable, port: 80, weight: 70}
  - {group: "", kind: Service, name: web-canary, port: 80, weight: 30}
  filters:
  - type: RequestMirror
    requestMirror:
      backendRef: {group: "", kind: Service, name: web-canary, port: 80}
      percent: 25
`
)

var (
	header = rampv1.SetHeaderRoute{Name: "header", Match: []rampv1.HeaderRoutingMatch{
		{HeaderName: "x-canary", HeaderValue: &rampv1.StringMatch{Exact: "on"}},
		{HeaderName: "x-user", HeaderValue: &rampv1.StringMatch{Prefix: "beta."}},
	}}
	mirror = rampv1.SetMirrorRoute{Name: "mirror", Percentage: ptr.To[int32](25), Match: []rampv1.RouteMatch{
		{Method: &rampv1.StringMatch{Exact: "POST"}, Path: &rampv1.StringMatch{Exact: "/checkout"}},
		{Path: &rampv1.StringMatch{Regex: "/cart/.*"}, Headers: map[string]rampv1.StringMatch{"x-debug": {Exact: "1"}}},
	}}
)

func TestSetRules(t *testing.T) {
	at30 := traffic.Route{Canary: 30, Max: 100}
	withHeader, withMirror, withBoth := at30, at30, at30
	withHeader.Headers = []rampv1.SetHeaderRoute{header}
	withMirror.Mirrors = []rampv1.SetMirrorRoute{mirror}
	withBoth.Headers, withBoth.Mirrors = withHeader.Headers, withMirror.Mirrors
	for _, tc := range []struct {
		name         string
		rules        string
		want         traffic.Route
		headerRoutes bool
		wantRules    string // the rules after setRules; "" when err
		err          string
	}{
		{name: "weights on the canary and stable backendRefs only",
			rules: weightedRule + staticRule, want: at30,
			wantRules: weighted30 + staticRule},
		{name: "kind and group unset, every rule with both Services",
			rules: `
- backendRefs: [{name: web-canary, port: 80}, {name: web-stable, port: 80}, {name: other, port: 80, weight: 5}]
- matches: [{path: {type: Exact, value: /b}}]
  backendRefs: [{name: web-canary, port: 80, weight: 1}, {name: web-stable, port: 80, weight: 1}]
`, want: at30, wantRules: `
- backendRefs: [{name: web-canary, port: 80, weight: 30}, {name: web-stable, port: 80, weight: 70}, {name: other, port: 80, weight: 5}]
- matches: [{path: {type: Exact, value: /b}}]
  backendRefs: [{name: web-canary, port: 80, weight: 30}, {name: web-stable, port: 80, weight: 70}]
`},
		{name: "same names of another kind, group or namespace are not the Services",
			rules: weightedRule + `
- backendRefs:
  - {group: multicluster.x-k8s.io, kind: ServiceImport, name: web-canary, port: 80, weight: 9}
  - {kind: Service, name: web-stable, namespace: other, port: 80, weight: 9}
  - {kind: Service, name: web-stable, port: 80, weight: 9}
`, want: at30, wantRules: weighted30 + `
- backendRefs:
  - {group: multicluster.x-k8s.io, kind: ServiceImport, name: web-canary, port: 80, weight: 9}
  - {kind: Service, name: web-stable, namespace: other, port: 80, weight: 9}
  - {kind: Service, name: web-stable, port: 80, weight: 9}
`},
		{name: "no rule routes to both Services",
			rules: staticRule + `
- backendRefs: [{name: web-stable, port: 80}]
`, want: at30,
			err: `no rule in spec.rules has backendRefs to both Service "web-canary" and Service "web-stable"`},
		{name: "no rules", rules: `[]`, want: at30, err: "no rule in spec.rules"},
		{name: "header rule ahead of the others, with the weighted rule's paths and methods",
			rules: weightedRule + staticRule, want: withHeader, headerRoutes: true,
			wantRules: headerRule30 + weighted30 + staticRule},
		{name: "header rules in want order",
			rules: weightedRule, headerRoutes: true,
			want: traffic.Route{Canary: 30, Max: 100, Headers: []rampv1.SetHeaderRoute{
				{Name: "second", Match: []rampv1.HeaderRoutingMatch{{HeaderName: "b", HeaderValue: &rampv1.StringMatch{Regex: "b+"}}}},
				{Name: "header", Match: []rampv1.HeaderRoutingMatch{{HeaderName: "a", HeaderValue: &rampv1.StringMatch{Exact: "a"}}}},
			}},
			wantRules: `
- name: second
  matches:
  - {path: {type: PathPrefix, value: /}, headers: [{name: b, type: RegularExpression, value: b+}]}
  - {path: {type: PathPrefix, value: /api}, method: GET, headers: [{name: b, type: RegularExpression, value: b+}]}
  backendRefs: [{group: "", kind: Service, name: web-canary, port: 80, weight: 1}]
- name: header
  matches:
  - {path: {type: PathPrefix, value: /}, headers: [{name: a, type: Exact, value: a}]}
  - {path: {type: PathPrefix, value: /api}, method: GET, headers: [{name: a, type: Exact, value: a}]}
  backendRefs: [{group: "", kind: Service, name: web-canary, port: 80, weight: 1}]
` + weighted30},
		{name: "header rule for a weighted rule without matches matches every path",
			rules: `
- backendRefs: [{name: web-stable, port: 80}, {name: web-canary, namespace: shop, port: 8080}]
`, want: traffic.Route{Canary: 30, Max: 100, Headers: []rampv1.SetHeaderRoute{
				{Name: "header", Match: []rampv1.HeaderRoutingMatch{{HeaderName: "a", HeaderValue: &rampv1.StringMatch{Exact: "a"}}}},
			}}, headerRoutes: true,
			wantRules: `
- name: header
  matches: [{path: {type: PathPrefix, value: /}, headers: [{name: a, type: Exact, value: a}]}]
  backendRefs: [{group: "", kind: Service, name: web-canary, namespace: shop, port: 8080, weight: 1}]
- backendRefs: [{name: web-stable, port: 80, weight: 70}, {name: web-canary, namespace: shop, port: 8080, weight: 30}]
`},
		{name: "header routes left out of an HTTPRoute without useHeaderRoutes",
			rules: weightedRule, want: withHeader, wantRules: weighted30},
		{name: "managed rules no longer wanted are removed, wherever they are",
			rules: headerRule30 + weightedRule + mirrorRule30 + staticRule, want: at30,
			wantRules: weighted30 + staticRule},
		{name: "a header route without match is removed",
			rules: headerRule30 + weightedRule, headerRoutes: true,
			want:      traffic.Route{Canary: 30, Max: 100, Headers: []rampv1.SetHeaderRoute{{Name: "header"}}},
			wantRules: weighted30},
		{name: "mirror rule with percent, copying the weighted backendRefs",
			rules: weightedRule + staticRule, want: withMirror,
			wantRules: mirrorRule30 + weighted30 + staticRule},
		{name: "header rules before mirror rules, managed rules rebuilt in place",
			rules: mirrorRule30 + weightedRule + headerRule30 + staticRule, want: withBoth, headerRoutes: true,
			wantRules: headerRule30 + mirrorRule30 + weighted30 + staticRule},
		{name: "mirror without percent mirrors everything",
			rules: weightedRule, want: traffic.Route{Canary: 30, Max: 100, Mirrors: []rampv1.SetMirrorRoute{
				{Name: "mirror", Match: []rampv1.RouteMatch{{}}},
			}},
			wantRules: `
- name: mirror
  matches: [{path: {type: PathPrefix, value: /}}]
  backendRefs:
  - {group: "", kind: Service, name: web-stable, port: 80, weight: 70}
  - {group: "", kind: Service, name: web-canary, port: 80, weight: 30}
  filters:
  - type: RequestMirror
    requestMirror: {backendRef: {group: "", kind: Service, name: web-canary, port: 80}}
` + weighted30},
		{name: "route not in managedRoutes",
			rules: weightedRule, headerRoutes: true,
			want: traffic.Route{Canary: 30, Max: 100, Headers: []rampv1.SetHeaderRoute{
				{Name: "adhoc", Match: []rampv1.HeaderRoutingMatch{{HeaderName: "a", HeaderValue: &rampv1.StringMatch{Exact: "a"}}}},
			}},
			err: `header route "adhoc" is not in trafficRouting.managedRoutes`},
		{name: "invalid mirror match",
			rules: weightedRule, want: traffic.Route{Canary: 30, Max: 100, Mirrors: []rampv1.SetMirrorRoute{
				{Name: "mirror", Match: []rampv1.RouteMatch{{Method: &rampv1.StringMatch{Regex: "P.*"}}}},
			}},
			err: `mirror route "mirror": match[0].method`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ro := rollout(`{"httpRoute": "web"}`)
			ro.Spec.Strategy.Canary.TrafficRouting.ManagedRoutes = append(ro.Spec.Strategy.Canary.TrafficRouting.ManagedRoutes, rampv1.ManagedRoute{Name: "second"})
			target := newTarget(ro, tc.want, tc.headerRoutes)
			u := route(t, tc.rules)
			err := setRules(u, target)
			checkErr(t, err, tc.err)
			if tc.err != "" {
				return
			}
			if got, want := toYAML(t, u), toYAML(t, route(t, tc.wantRules)); got != want {
				t.Fatalf("got\n%s\nwant\n%s", got, want)
			}
			// What setRules wrote is what it wants: a second pass changes nothing.
			again := u.DeepCopy()
			if err := setRules(again, target); err != nil {
				t.Fatal(err)
			}
			if got, want := toYAML(t, again), toYAML(t, u); got != want {
				t.Fatalf("second pass changed the route:\n%s\nwas\n%s", got, want)
			}
		})
	}
}

func toYAML(t *testing.T, u *unstructured.Unstructured) string {
	t.Helper()
	b, err := yaml.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
