package nginx

import (
	"fmt"
	"sort"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// Check validates ro's nginx configuration and the Services it needs.
func (r *Router) Check(ro *rampv1.Rollout) error {
	cs, n := config(ro)
	if n == nil {
		return fmt.Errorf("%s: not set", field)
	}
	switch {
	case n.StableIngress != "" && len(n.StableIngresses) > 0:
		return fmt.Errorf("%s: set stableIngress or stableIngresses, not both", field)
	case n.StableIngress == "" && len(n.StableIngresses) == 0:
		return fmt.Errorf("%s: stableIngress or stableIngresses required", field)
	}
	seen := map[string]bool{}
	for i, name := range n.StableIngresses {
		switch {
		case name == "":
			return fmt.Errorf("%s.stableIngresses[%d]: empty name", field, i)
		case seen[name]:
			return fmt.Errorf("%s.stableIngresses[%d]: %q listed twice", field, i, name)
		}
		seen[name] = true
	}
	switch {
	case cs.CanaryService == "":
		return fmt.Errorf("spec.strategy.canary.canaryService: required by nginx traffic routing")
	case cs.StableService == "":
		return fmt.Errorf("spec.strategy.canary.stableService: required by nginx traffic routing")
	case cs.CanaryService == cs.StableService:
		return fmt.Errorf("spec.strategy.canary.canaryService: must differ from stableService (%q)", cs.StableService)
	}
	return checkAnnotations(n)
}

// checkAnnotations rejects user annotations that would set what Ramp sets
// (the canary flag and weights) or that set one key to two values.
func checkAnnotations(n *rampv1.NginxTrafficRouting) error {
	p := prefix(n)
	for _, k := range sortedKeys(n.AdditionalIngressAnnotations) {
		if reserved[k] {
			return fmt.Errorf("%s.additionalIngressAnnotations[%q]: set by Ramp", field, k)
		}
	}
	for _, k := range sortedKeys(n.CanaryIngressAnnotations) {
		short, ok := cutPrefix(p, k)
		if !ok {
			continue
		}
		if reserved[short] {
			return fmt.Errorf("%s.canaryIngressAnnotations[%q]: set by Ramp", field, k)
		}
		if v, dup := n.AdditionalIngressAnnotations[short]; dup && v != n.CanaryIngressAnnotations[k] {
			return fmt.Errorf("%s.canaryIngressAnnotations[%q]: conflicts with additionalIngressAnnotations[%q]", field, k, short)
		}
	}
	return nil
}

// CheckHeaderRoute reports whether NGINX can express route: one header
// matched exactly, by prefix or by regular expression. A route without
// matches (which removes the route) is fine.
func CheckHeaderRoute(route *rampv1.SetHeaderRoute) error {
	if route == nil || len(route.Match) == 0 {
		return nil
	}
	if len(route.Match) > 1 {
		return fmt.Errorf("setHeaderRoute %q: nginx matches one header, got %d", route.Name, len(route.Match))
	}
	m := route.Match[0]
	if m.HeaderName == "" {
		return fmt.Errorf("setHeaderRoute %q: match[0].headerName required", route.Name)
	}
	set := 0
	if v := m.HeaderValue; v != nil {
		for _, s := range []string{v.Exact, v.Prefix, v.Regex} {
			if s != "" {
				set++
			}
		}
	}
	if set != 1 {
		return fmt.Errorf("setHeaderRoute %q: match[0].headerValue: set exactly one of exact, prefix, regex", route.Name)
	}
	return nil
}

// checkRoute reports a Route the canary Ingress cannot carry.
func checkRoute(want traffic.Route) error {
	switch {
	case want.Max <= 0 || want.Canary < 0 || want.Canary > want.Max:
		return fmt.Errorf("nginx: canary weight %d of %d out of range", want.Canary, want.Max)
	case len(want.Mirrors) > 0:
		return fmt.Errorf("nginx: cannot mirror traffic (setMirrorRoute %q)", want.Mirrors[0].Name)
	case len(want.Headers) > 1:
		return fmt.Errorf("nginx: can hold one header route, got %d", len(want.Headers))
	case len(want.Headers) == 1:
		return CheckHeaderRoute(&want.Headers[0])
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
