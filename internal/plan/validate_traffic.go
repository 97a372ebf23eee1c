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
// express it (their traffic.Capabilities).
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
		d, err := traffic.Lookup(r)
		caps := d.Caps
		switch {
		case err != nil: // reported by ValidateSupported
		case header && !caps.HeaderRoutes:
			return fmt.Sprintf("%s: the %s traffic router cannot express header routes", path, r)
		case !header && !caps.MirrorRoutes:
			return fmt.Sprintf("%s: the %s traffic router cannot express mirror routes", path, r)
		case header && caps.HeaderMatch != nil:
			if p := caps.HeaderMatch(s.SetHeaderRoute.Match); p != "" {
				return path + p
			}
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
