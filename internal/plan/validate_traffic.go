package plan

import (
	"fmt"
	"strings"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// routingProblems lists what makes a trafficRouting block unusable by any
// router: at least one router, and the two Services where the routers
// configured need them (traffic.NeedsServices, upstream's rule).
func routingProblems(c *rampv1.CanaryStrategy) []string {
	if c == nil || c.TrafficRouting == nil {
		return nil
	}
	var out []string
	if len(traffic.Configured(c.TrafficRouting)) == 0 {
		out = append(out, "spec.strategy.canary.trafficRouting: no traffic router is configured")
	}
	if !traffic.NeedsServices(c) {
		return out
	}
	if c.CanaryService == "" {
		out = append(out, "spec.strategy.canary.canaryService: required with trafficRouting")
	}
	if c.StableService == "" {
		out = append(out, "spec.strategy.canary.stableService: required with trafficRouting")
	}
	return out
}

// managedRouteProblem checks a setHeaderRoute or setMirrorRoute step: it
// needs trafficRouting, a name listed in managedRoutes and routers that can
// express it.
func managedRouteProblem(c *rampv1.CanaryStrategy, path string, s rampv1.CanaryStep) string {
	field, name, header := "setMirrorRoute", "", s.SetHeaderRoute != nil
	if header {
		field, name = "setHeaderRoute", s.SetHeaderRoute.Name
	} else {
		name = s.SetMirrorRoute.Name
	}
	path += "." + field
	tr := c.TrafficRouting
	if tr == nil {
		return path + ": needs spec.strategy.canary.trafficRouting"
	}
	listed := false
	for _, m := range tr.ManagedRoutes {
		listed = listed || m.Name == name
	}
	if !listed {
		return fmt.Sprintf("%s.name: %q is not listed in spec.strategy.canary.trafficRouting.managedRoutes", path, name)
	}
	for _, r := range traffic.Configured(tr) {
		caps, ok := traffic.Caps[r]
		switch {
		case !ok: // reported by ValidateSupported
		case header && !caps.HeaderRoutes:
			return fmt.Sprintf("%s: the %s traffic router cannot express header routes", path, r)
		case !header && !caps.MirrorRoutes:
			return fmt.Sprintf("%s: the %s traffic router cannot express mirror routes", path, r)
		case header && r == traffic.Nginx && len(s.SetHeaderRoute.Match) > 1:
			return path + ".match: the nginx traffic router can route on one header only (canary-by-header)"
		case header && r == traffic.ALB:
			if p := albMatchProblem(s.SetHeaderRoute.Match); p != "" {
				return path + p
			}
		}
	}
	return ""
}

// albMatchProblem checks header matches for ALB, whose listener conditions
// compare a header's value as written (with the wildcards * and ?): each
// needs a header name and an exact value.
func albMatchProblem(ms []rampv1.HeaderRoutingMatch) string {
	for i, m := range ms {
		v := m.HeaderValue
		switch {
		case m.HeaderName == "":
			return fmt.Sprintf(".match[%d].headerName: required by the alb traffic router", i)
		case v == nil || v.Exact == "" || v.Prefix != "" || v.Regex != "":
			return fmt.Sprintf(".match[%d].headerValue: the alb traffic router matches exact values only (ALB takes * and ? as wildcards in them)", i)
		}
	}
	return ""
}

// routerField is how a router name appears in a field path.
func routerField(name string) string {
	if strings.Contains(name, "/") {
		return fmt.Sprintf("plugins[%q]", name)
	}
	return name
}
