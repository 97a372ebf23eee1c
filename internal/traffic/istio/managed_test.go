package istio

import (
	"strings"
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// withManaged is a VirtualService spec holding managed routes left from an
// earlier step ("mirror" and a stale "beta") above the user's routes.
const withManaged = `
http:
- name: mirror
  route: [{destination: {host: somewhere}}]
- name: beta
  match: [{headers: {x-old: {exact: "1"}}}]
  route: [{destination: {host: web, subset: canary}, weight: 100}]
- name: primary
  retries: {attempts: 3}
  route:
  - destination: {host: web, subset: stable, port: {number: 8080}}
    weight: 100
  - destination: {host: web, subset: canary, port: {number: 8080}}
    weight: 0
- name: admin
  route: [{destination: {host: admin}}]`

// userRoutes are withManaged's own routes at weight 10.
const userRoutes = `
- name: primary
  retries: {attempts: 3}
  route:
  - destination: {host: web, subset: stable, port: {number: 8080}}
    weight: 90
  - destination: {host: web, subset: canary, port: {number: 8080}}
    weight: 10
- name: admin
  route: [{destination: {host: admin}}]`

func header(name string, m ...rampv1.HeaderRoutingMatch) rampv1.SetHeaderRoute {
	return rampv1.SetHeaderRoute{Name: name, Match: m}
}

func TestManagedRoutes(t *testing.T) {
	managed := []string{"beta", "mobile", "mirror"}
	at10 := traffic.Route{Canary: 10, Max: 100}
	tests := []struct {
		name    string
		headers []rampv1.SetHeaderRoute
		mirrors []rampv1.SetMirrorRoute
		http    string // spec.http after the change
		wantErr string
	}{{
		name: "header routes on top in want order, then mirror routes; stale ones replaced",
		headers: []rampv1.SetHeaderRoute{
			header("mobile", rampv1.HeaderRoutingMatch{HeaderName: "user-agent", HeaderValue: &rampv1.StringMatch{Regex: ".*Mobile.*"}}),
			header("beta",
				rampv1.HeaderRoutingMatch{HeaderName: "x-beta", HeaderValue: &rampv1.StringMatch{Exact: "yes"}},
				rampv1.HeaderRoutingMatch{HeaderName: "x-region", HeaderValue: &rampv1.StringMatch{Prefix: "eu-"}}),
		},
		mirrors: []rampv1.SetMirrorRoute{{
			Name:       "mirror",
			Percentage: ptr[int32](35),
			Match: []rampv1.RouteMatch{
				{Method: &rampv1.StringMatch{Exact: "GET"}, Path: &rampv1.StringMatch{Prefix: "/api"}},
				{Headers: map[string]rampv1.StringMatch{"x-shadow": {Exact: "on"}}},
			},
		}},
		http: `
- name: mobile
  match: [{headers: {user-agent: {regex: .*Mobile.*}}}]
  route: [{destination: {host: web, subset: canary, port: {number: 8080}}, weight: 100}]
- name: beta
  match: [{headers: {x-beta: {exact: "yes"}, x-region: {prefix: eu-}}}]
  route: [{destination: {host: web, subset: canary, port: {number: 8080}}, weight: 100}]
- name: mirror
  match:
  - {method: {exact: GET}, uri: {prefix: /api}}
  - {headers: {x-shadow: {exact: "on"}}}
  route:
  - destination: {host: web, subset: stable, port: {number: 8080}}
    weight: 90
  - destination: {host: web, subset: canary, port: {number: 8080}}
    weight: 10
  mirror: {host: web, subset: canary, port: {number: 8080}}
  mirrorPercentage: {value: 35}` + userRoutes,
	}, {
		name:    "managed routes not wanted are removed",
		headers: []rampv1.SetHeaderRoute{header("beta")}, // no match: removal
		http:    userRoutes,
	}, {
		name:    "a route not in managedRoutes",
		headers: []rampv1.SetHeaderRoute{header("stray", rampv1.HeaderRoutingMatch{HeaderName: "x", HeaderValue: &rampv1.StringMatch{Exact: "1"}})},
		wantErr: `header route "stray" is not listed in trafficRouting.managedRoutes`,
	}, {
		name:    "a header value with two kinds of match",
		headers: []rampv1.SetHeaderRoute{header("beta", rampv1.HeaderRoutingMatch{HeaderName: "x", HeaderValue: &rampv1.StringMatch{Exact: "1", Prefix: "1"}})},
		wantErr: `header route "beta": header "x": set exactly one of exact, prefix, regex`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := parse(t, "spec:\n"+indent(withManaged))
			want := at10
			want.Headers, want.Mirrors = tt.headers, tt.mirrors
			ro := rollout(rampv1.IstioTrafficRouting{}, managed...)
			p := &vsPatch{sel: rampv1.IstioVirtualService{Name: "web", Routes: []string{"primary"}}, dests: bySubset, managed: managedNames(ro), want: want}
			err := p.apply(u)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !p.placed {
				t.Error("placed = false for a VirtualService with a weighted http route")
			}
			assertValue(t, spec(u)["http"], tt.http)
		})
	}
}

// A VirtualService updated only by its tcp routes gets no managed routes,
// and loses those left in it.
func TestManagedRoutesNeedWeightedHTTPRoute(t *testing.T) {
	u := parse(t, `
spec:
  http:
  - name: beta
    route: [{destination: {host: web-canary}}]
  - name: web
    route: [{destination: {host: web-stable}}]
  tcp:
  - route:
    - destination: {host: web-stable}
    - destination: {host: web-canary}`)
	want := traffic.Route{Canary: 10, Max: 100, Headers: []rampv1.SetHeaderRoute{
		header("beta", rampv1.HeaderRoutingMatch{HeaderName: "x", HeaderValue: &rampv1.StringMatch{Exact: "1"}})}}
	p := &vsPatch{sel: rampv1.IstioVirtualService{Name: "web", TCPRoutes: []rampv1.TCPRoute{{}}}, dests: byHost, managed: map[string]bool{"beta": true}, want: want}
	if err := p.apply(u); err != nil {
		t.Fatal(err)
	}
	if p.placed {
		t.Error("placed = true without a weighted http route")
	}
	assertValue(t, spec(u)["http"], `[{name: web, route: [{destination: {host: web-stable}}]}]`)
	assertValue(t, spec(u)["tcp"], `[{route: [{destination: {host: web-stable}, weight: 90}, {destination: {host: web-canary}, weight: 10}]}]`)
}
