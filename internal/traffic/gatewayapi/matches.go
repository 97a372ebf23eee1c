package gatewayapi

import (
	"errors"
	"fmt"
	"regexp"
	"sort"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// The builders below return HTTPRoute fragments as unstructured values
// (int64 numbers, every field the API server would default set), so that
// what they build compares equal to what the server hands back.

// defaultPath is the path match the API server puts in a match without one.
func defaultPath() map[string]any { return map[string]any{"type": "PathPrefix", "value": "/"} }

// oneOf returns which field of a StringMatch is set and its value.
func oneOf(v rampv1.StringMatch) (kind, value string, err error) {
	set := 0
	for _, f := range []struct{ kind, value string }{{"exact", v.Exact}, {"prefix", v.Prefix}, {"regex", v.Regex}} {
		if f.value != "" {
			kind, value = f.kind, f.value
			set++
		}
	}
	if set != 1 {
		return "", "", errors.New("set exactly one of exact, prefix and regex")
	}
	return kind, value, nil
}

// headerMatch is an HTTPHeaderMatch. Gateway API has no prefix match for
// headers: a prefix becomes the regular expression ^<quoted prefix>.*.
func headerMatch(name string, v rampv1.StringMatch) (map[string]any, error) {
	kind, value, err := oneOf(v)
	if err != nil {
		return nil, err
	}
	switch kind {
	case "exact":
		return map[string]any{"name": name, "type": "Exact", "value": value}, nil
	case "prefix":
		return map[string]any{"name": name, "type": "RegularExpression", "value": "^" + regexp.QuoteMeta(value) + ".*"}, nil
	default:
		return map[string]any{"name": name, "type": "RegularExpression", "value": value}, nil
	}
}

// headerMatches are the header conditions of a setHeaderRoute.
func headerMatches(ms []rampv1.HeaderRoutingMatch) ([]any, error) {
	out := make([]any, 0, len(ms))
	for i, m := range ms {
		if m.HeaderValue == nil {
			return nil, fmt.Errorf("match[%d].headerValue: required", i)
		}
		h, err := headerMatch(m.HeaderName, *m.HeaderValue)
		if err != nil {
			return nil, fmt.Errorf("match[%d].headerValue: %w", i, err)
		}
		out = append(out, h)
	}
	return out, nil
}

// pathMatch is an HTTPPathMatch.
func pathMatch(v rampv1.StringMatch) (map[string]any, error) {
	kind, value, err := oneOf(v)
	if err != nil {
		return nil, err
	}
	typ := map[string]string{"exact": "Exact", "prefix": "PathPrefix", "regex": "RegularExpression"}[kind]
	return map[string]any{"type": typ, "value": value}, nil
}

// mirrorMatches are the HTTPRouteMatches of a setMirrorRoute: one per match
// block (blocks are ORed, as matches are), headers sorted by name.
func mirrorMatches(ms []rampv1.RouteMatch) ([]any, error) {
	out := make([]any, 0, len(ms))
	for i, rm := range ms {
		m := map[string]any{"path": defaultPath()}
		if rm.Path != nil {
			p, err := pathMatch(*rm.Path)
			if err != nil {
				return nil, fmt.Errorf("match[%d].path: %w", i, err)
			}
			m["path"] = p
		}
		if rm.Method != nil {
			if rm.Method.Exact == "" || rm.Method.Prefix != "" || rm.Method.Regex != "" {
				return nil, fmt.Errorf("match[%d].method: Gateway API matches a method exactly: set only exact", i)
			}
			m["method"] = rm.Method.Exact
		}
		if len(rm.Headers) > 0 {
			names := make([]string, 0, len(rm.Headers))
			for n := range rm.Headers {
				names = append(names, n)
			}
			sort.Strings(names)
			headers := make([]any, 0, len(names))
			for _, n := range names {
				h, err := headerMatch(n, rm.Headers[n])
				if err != nil {
					return nil, fmt.Errorf("match[%d].headers[%q]: %w", i, n, err)
				}
				headers = append(headers, h)
			}
			m["headers"] = headers
		}
		out = append(out, m)
	}
	return out, nil
}
