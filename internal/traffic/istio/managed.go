package istio

import (
	"errors"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/runtime"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// managedRoutes builds want's managed http routes, header routes first and
// then mirror routes, each in want's order. weighted is the first selected
// weighted http route, its weights already set: header routes send to its
// canary destination, mirror routes copy its destinations and mirror to the
// canary. A route whose step has no match is left out (removed).
func managedRoutes(want traffic.Route, managed map[string]bool, d dests, weighted map[string]any) ([]any, error) {
	canary := d.canaryDest(weighted)
	if canary == nil {
		return nil, fmt.Errorf("no destination for the canary %s %q", d.kind(), d.canary)
	}
	var out []any
	seen := map[string]bool{}
	add := func(kind, name string, build func() (map[string]any, error)) error {
		switch {
		case !managed[name]:
			return fmt.Errorf("%s route %q is not listed in trafficRouting.managedRoutes", kind, name)
		case seen[name]:
			return fmt.Errorf("managed route %q is set twice", name)
		}
		seen[name] = true
		r, err := build()
		if err != nil {
			return fmt.Errorf("%s route %q: %w", kind, name, err)
		}
		out = append(out, r)
		return nil
	}
	for _, h := range want.Headers {
		if len(h.Match) > 0 {
			if err := add("header", h.Name, func() (map[string]any, error) { return headerRoute(h, canary) }); err != nil {
				return nil, err
			}
		}
	}
	for _, m := range want.Mirrors {
		if len(m.Match) > 0 {
			if err := add("mirror", m.Name, func() (map[string]any, error) { return mirrorRoute(m, weighted, canary) }); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// wantsManaged reports whether want has a header or mirror route to place.
func wantsManaged(want traffic.Route) bool {
	for _, h := range want.Headers {
		if len(h.Match) > 0 {
			return true
		}
	}
	for _, m := range want.Mirrors {
		if len(m.Match) > 0 {
			return true
		}
	}
	return false
}

// headerRoute sends requests carrying all of h's headers to canary.
func headerRoute(h rampv1.SetHeaderRoute, canary map[string]any) (map[string]any, error) {
	headers := map[string]any{}
	for _, m := range h.Match {
		if m.HeaderValue == nil {
			return nil, fmt.Errorf("header %q: headerValue required", m.HeaderName)
		}
		sm, err := stringMatch(*m.HeaderValue)
		if err != nil {
			return nil, fmt.Errorf("header %q: %w", m.HeaderName, err)
		}
		headers[m.HeaderName] = sm
	}
	return map[string]any{
		"name":  h.Name,
		"match": []any{map[string]any{"headers": headers}},
		"route": []any{map[string]any{"destination": runtime.DeepCopyJSONValue(canary), "weight": int64(100)}},
	}, nil
}

// mirrorRoute routes requests matching m like weighted does and mirrors
// them (m.Percentage of them, when set) to canary.
func mirrorRoute(m rampv1.SetMirrorRoute, weighted, canary map[string]any) (map[string]any, error) {
	var matches []any
	for i, rm := range m.Match {
		block, err := routeMatch(rm)
		if err != nil {
			return nil, fmt.Errorf("match[%d]: %w", i, err)
		}
		matches = append(matches, block)
	}
	r := map[string]any{
		"name":   m.Name,
		"match":  matches,
		"route":  runtime.DeepCopyJSONValue(weighted["route"]),
		"mirror": runtime.DeepCopyJSONValue(canary),
	}
	if m.Percentage != nil {
		// An int64, not a float64: that is how a whole number reads back
		// from the API server, so a re-read compares equal.
		r["mirrorPercentage"] = map[string]any{"value": int64(*m.Percentage)}
	}
	return r, nil
}

// routeMatch is one Istio HTTPMatchRequest: method, uri and headers.
func routeMatch(rm rampv1.RouteMatch) (map[string]any, error) {
	block := map[string]any{}
	for _, f := range []struct {
		key string
		sm  *rampv1.StringMatch
	}{{"method", rm.Method}, {"uri", rm.Path}} {
		if f.sm == nil {
			continue
		}
		v, err := stringMatch(*f.sm)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.key, err)
		}
		block[f.key] = v
	}
	if len(rm.Headers) == 0 {
		return block, nil
	}
	names := make([]string, 0, len(rm.Headers))
	for n := range rm.Headers {
		names = append(names, n)
	}
	sort.Strings(names) // the first error is the same on every call
	headers := map[string]any{}
	for _, n := range names {
		v, err := stringMatch(rm.Headers[n])
		if err != nil {
			return nil, fmt.Errorf("header %q: %w", n, err)
		}
		headers[n] = v
	}
	block["headers"] = headers
	return block, nil
}

// stringMatch is an Istio StringMatch: exactly one of exact, prefix, regex.
func stringMatch(m rampv1.StringMatch) (map[string]any, error) {
	out := map[string]any{}
	for key, v := range map[string]string{"exact": m.Exact, "prefix": m.Prefix, "regex": m.Regex} {
		if v != "" {
			out[key] = v
		}
	}
	if len(out) != 1 {
		return nil, errors.New("set exactly one of exact, prefix, regex")
	}
	return out, nil
}
