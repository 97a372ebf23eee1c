package istio

import (
	"strings"
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

var (
	byHost   = dests{canary: "web-canary", stable: "web-stable"}
	bySubset = dests{bySubset: true, canary: "canary", stable: "stable"}
	at30     = traffic.Route{Canary: 30, Max: 100}
)

func TestVirtualServiceWeights(t *testing.T) {
	tests := []struct {
		name    string
		spec    string // the VirtualService's spec
		sel     rampv1.IstioVirtualService
		dests   dests
		want    traffic.Route
		result  string // its spec after the change
		wantErr string
	}{{
		name: "single unnamed http route, FQDN hosts, other fields kept",
		spec: `
hosts: [web.example.com]
http:
- timeout: 5s
  route:
  - destination: {host: web-stable.shop.svc.cluster.local, port: {number: 80}}
    weight: 100
  - destination: {host: web-canary.shop.svc.cluster.local, port: {number: 80}}
    weight: 0`,
		sel: rampv1.IstioVirtualService{Name: "web"}, dests: byHost, want: at30,
		result: `
hosts: [web.example.com]
http:
- timeout: 5s
  route:
  - destination: {host: web-stable.shop.svc.cluster.local, port: {number: 80}}
    weight: 70
  - destination: {host: web-canary.shop.svc.cluster.local, port: {number: 80}}
    weight: 30`,
	}, {
		name: "subset-level, named routes among others, maxTrafficWeight",
		spec: `
http:
- name: api
  route:
  - destination: {host: web, subset: stable}
  - destination: {host: web, subset: canary}
- name: admin
  route:
  - destination: {host: admin}
- name: static
  route:
  - destination: {host: web, subset: stable}
    weight: 100
  - destination: {host: web, subset: canary}
    weight: 0`,
		sel: rampv1.IstioVirtualService{Name: "web", Routes: []string{"static", "api"}}, dests: bySubset,
		want: traffic.Route{Canary: 250, Max: 1000},
		result: `
http:
- name: api
  route:
  - destination: {host: web, subset: stable}
    weight: 750
  - destination: {host: web, subset: canary}
    weight: 250
- name: admin
  route:
  - destination: {host: admin}
- name: static
  route:
  - destination: {host: web, subset: stable}
    weight: 750
  - destination: {host: web, subset: canary}
    weight: 250`,
	}, {
		name: "tls routes by port and SNI hosts, tcp routes by port",
		spec: `
tls:
- match: [{port: 443, sniHosts: [a.example.com, b.example.com]}]
  route:
  - destination: {host: web-stable}
  - destination: {host: web-canary}
- match: [{port: 443, sniHosts: [c.example.com]}]
  route:
  - destination: {host: other}
tcp:
- match: [{port: 5432}]
  route:
  - destination: {host: web-stable}
  - destination: {host: web-canary}
- match: [{port: 6379}]
  route:
  - destination: {host: cache}`,
		sel: rampv1.IstioVirtualService{Name: "web",
			TLSRoutes: []rampv1.TLSRoute{{Port: 443, SNIHosts: []string{"b.example.com"}}},
			TCPRoutes: []rampv1.TCPRoute{{Port: 5432}}},
		dests: byHost, want: at30,
		result: `
tls:
- match: [{port: 443, sniHosts: [a.example.com, b.example.com]}]
  route:
  - destination: {host: web-stable}
    weight: 70
  - destination: {host: web-canary}
    weight: 30
- match: [{port: 443, sniHosts: [c.example.com]}]
  route:
  - destination: {host: other}
tcp:
- match: [{port: 5432}]
  route:
  - destination: {host: web-stable}
    weight: 70
  - destination: {host: web-canary}
    weight: 30
- match: [{port: 6379}]
  route:
  - destination: {host: cache}`,
	}, {
		name: "several http routes and none named",
		spec: `http: [{name: a}, {name: b}, {name: c}]`,
		sel:  rampv1.IstioVirtualService{Name: "web"}, dests: byHost, want: at30,
		wantErr: "it has 3 http routes: list the ones to update in routes",
	}, {
		name: "unknown route",
		spec: `http: [{name: a}]`,
		sel:  rampv1.IstioVirtualService{Name: "web", Routes: []string{"nope"}}, dests: byHost, want: at30,
		wantErr: `http route "nope" not found`,
	}, {
		name: "route without the canary destination",
		spec: `
http:
- name: api
  route:
  - destination: {host: web-stable}`,
		sel: rampv1.IstioVirtualService{Name: "web", Routes: []string{"api"}}, dests: byHost, want: at30,
		wantErr: `http route "api": no destination for the canary Service "web-canary"`,
	}, {
		name: "a host that only starts like the Service",
		spec: `
http:
- route:
  - destination: {host: web-stable}
  - destination: {host: web-canary-old}`,
		sel: rampv1.IstioVirtualService{Name: "web"}, dests: byHost, want: at30,
		wantErr: `the http route: no destination for the canary Service "web-canary"`,
	}, {
		name: "subset missing from the route",
		spec: `
http:
- route:
  - destination: {host: web, subset: canary}`,
		sel: rampv1.IstioVirtualService{Name: "web"}, dests: bySubset, want: at30,
		wantErr: `the http route: no destination for the stable subset "stable"`,
	}, {
		name: "tls selector matching no route",
		spec: `
tls:
- match: [{port: 443, sniHosts: [a.example.com]}]`,
		sel: rampv1.IstioVirtualService{Name: "web", TLSRoutes: []rampv1.TLSRoute{{Port: 8443}}}, dests: byHost, want: at30,
		wantErr: "no tls route matches tlsRoutes[0]",
	}, {
		name: "no routes at all",
		spec: `hosts: [web]`,
		sel:  rampv1.IstioVirtualService{Name: "web"}, dests: byHost, want: at30,
		wantErr: "no http routes to update",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := parse(t, "spec:\n"+indent(tt.spec))
			p := &vsPatch{sel: tt.sel, dests: tt.dests, managed: map[string]bool{}, want: tt.want}
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
			assertValue(t, spec(u), tt.result)
		})
	}
}

// indent nests a YAML document one level.
func indent(doc string) string {
	lines := strings.Split(strings.Trim(doc, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}
