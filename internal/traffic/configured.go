package traffic

import (
	"sort"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Configured lists, sorted, the router names a trafficRouting block sets
// (plugins by their key). It follows the API, not the registry: names Ramp
// has no router for are included (Lookup tells), so that the planner can
// refuse them by name, and a new router under an existing field or a
// plugin key needs no change here.
func Configured(tr *rampv1.RolloutTrafficRouting) []string {
	if tr == nil {
		return nil
	}
	var names []string
	add := func(set bool, name string) {
		if set {
			names = append(names, name)
		}
	}
	add(tr.Istio != nil, "istio")
	add(tr.Nginx != nil, "nginx")
	add(tr.ALB != nil, "alb")
	add(tr.SMI != nil, "smi")
	add(tr.Ambassador != nil, "ambassador")
	add(tr.AppMesh != nil, "appMesh")
	add(tr.Traefik != nil, "traefik")
	add(tr.Apisix != nil, "apisix")
	for k := range tr.Plugins {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// NeedsServices reports whether c's routing needs both canaryService and
// stableService, as upstream validates it: every router that names the two
// Services in its objects does (alb, ambassador, apisix, appMesh, nginx,
// smi, traefik, and istio routing by host), except alb and istio under
// pingPong; istio routing by DestinationRule subset and plugins do not.
func NeedsServices(c *rampv1.CanaryStrategy) bool {
	if c == nil || c.TrafficRouting == nil {
		return false
	}
	tr, pingPong := c.TrafficRouting, c.PingPong != nil
	switch {
	case tr.ALB != nil && !pingPong,
		tr.Istio != nil && tr.Istio.DestinationRule == nil && !pingPong,
		tr.SMI != nil, tr.Apisix != nil, tr.Ambassador != nil,
		tr.Nginx != nil, tr.AppMesh != nil, tr.Traefik != nil:
		return true
	}
	return false
}
