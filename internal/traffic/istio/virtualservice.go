package istio

import (
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// vsPatch brings one VirtualService to want: the weights of its selected
// routes and, when it has a selected http route, the managed http routes.
type vsPatch struct {
	sel     rampv1.IstioVirtualService
	dests   dests
	managed map[string]bool // trafficRouting.managedRoutes
	want    traffic.Route
	// placed is set by apply when the VirtualService got want's managed
	// routes (it had a weighted http route to take the canary from).
	placed bool
}

// route is a selected route and how errors name it.
type route struct {
	label string
	m     map[string]any
}

// apply is the pure change to one VirtualService. It touches the weights
// of the selected routes' canary and stable destinations and the managed
// http routes, nothing else.
func (p *vsPatch) apply(u *unstructured.Unstructured) error {
	spec, _ := u.Object["spec"].(map[string]any)
	http := list(spec, "http")
	own := slices.DeleteFunc(slices.Clone(http), func(v any) bool { return p.managed[name(v)] })
	weighted, err := selectHTTP(own, p.sel)
	if err != nil {
		return err
	}
	tls, err := selectByMatch("tls", list(spec, "tls"), p.sel.TLSRoutes, tlsMatches)
	if err != nil {
		return err
	}
	tcp, err := selectByMatch("tcp", list(spec, "tcp"), p.sel.TCPRoutes, tcpMatches)
	if err != nil {
		return err
	}
	for _, r := range slices.Concat(weighted, tls, tcp) {
		if err := p.dests.setWeights(r.m, p.want.Canary, p.want.Stable()); err != nil {
			return fmt.Errorf("%s: %w", r.label, err)
		}
	}
	if len(weighted) == 0 {
		if len(own) < len(http) { // managed routes left from a VirtualService that has no weighted http route
			spec["http"] = own
		}
		return nil
	}
	top, err := managedRoutes(p.want, p.managed, p.dests, weighted[0].m)
	if err != nil {
		return err
	}
	spec["http"] = append(top, own...)
	p.placed = true
	return nil
}

// selectHTTP picks the http routes named in sel.Routes from own (the
// non-managed routes). With no names and no tls or tcp selectors, the one
// http route there is.
func selectHTTP(own []any, sel rampv1.IstioVirtualService) ([]route, error) {
	if len(sel.Routes) == 0 {
		if len(sel.TLSRoutes) > 0 || len(sel.TCPRoutes) > 0 {
			return nil, nil
		}
		switch len(own) {
		case 0:
			return nil, errors.New("no http routes to update: list tlsRoutes or tcpRoutes")
		case 1:
			m, _ := own[0].(map[string]any)
			lbl := "the http route"
			if n := name(m); n != "" {
				lbl = fmt.Sprintf("http route %q", n)
			}
			return []route{{label: lbl, m: m}}, nil
		}
		return nil, fmt.Errorf("it has %d http routes: list the ones to update in routes", len(own))
	}
	var out []route
	for _, want := range sel.Routes {
		i := slices.IndexFunc(own, func(v any) bool { return name(v) == want })
		if i < 0 {
			return nil, fmt.Errorf("http route %q not found", want)
		}
		m, _ := own[i].(map[string]any)
		out = append(out, route{label: fmt.Sprintf("http route %q", want), m: m})
	}
	return out, nil
}

// selectByMatch picks the routes (of kind tls or tcp) that some match entry
// of matches a selector in sels; each selector must pick at least one.
func selectByMatch[S any](kind string, routes []any, sels []S, matches func(match map[string]any, sel S) bool) ([]route, error) {
	picked := make([]bool, len(routes))
	for j, sel := range sels {
		found := false
		for i, v := range routes {
			m, _ := v.(map[string]any)
			if routeMatches(m, func(match map[string]any) bool { return matches(match, sel) }) {
				picked[i], found = true, true
			}
		}
		if !found {
			return nil, fmt.Errorf("no %s route matches %sRoutes[%d] %+v", kind, kind, j, sel)
		}
	}
	var out []route
	for i, v := range routes {
		if picked[i] {
			m, _ := v.(map[string]any)
			out = append(out, route{label: label(kind, i, m), m: m})
		}
	}
	return out, nil
}

// routeMatches reports whether one of route's match entries satisfies ok; a
// route without match entries takes all traffic and is tested as {}.
func routeMatches(route map[string]any, ok func(map[string]any) bool) bool {
	matches := list(route, "match")
	if len(matches) == 0 {
		return ok(map[string]any{})
	}
	return slices.ContainsFunc(matches, func(v any) bool {
		m, _ := v.(map[string]any)
		return ok(m)
	})
}

// tlsMatches: the port (0: any) and every one of the selector's SNI hosts.
func tlsMatches(match map[string]any, sel rampv1.TLSRoute) bool {
	if !portMatches(match, sel.Port) {
		return false
	}
	hosts := list(match, "sniHosts")
	for _, h := range sel.SNIHosts {
		if !slices.Contains(hosts, any(h)) {
			return false
		}
	}
	return true
}

// tcpMatches: the port (0: any).
func tcpMatches(match map[string]any, sel rampv1.TCPRoute) bool {
	return portMatches(match, sel.Port)
}

func portMatches(match map[string]any, port int64) bool {
	n, _ := number(match["port"])
	return port == 0 || n == port
}

// name is a route's name, "" when it has none.
func name(v any) string {
	m, _ := v.(map[string]any)
	s, _ := m["name"].(string)
	return s
}

// label names a route in errors: by name, else by kind and index.
func label(kind string, i int, m map[string]any) string {
	if n := name(m); n != "" {
		return fmt.Sprintf("%s route %q", kind, n)
	}
	return fmt.Sprintf("%s route %d", kind, i)
}
