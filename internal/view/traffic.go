package view

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

// Traffic is how a traffic-routed canary's requests are split now: the
// routers of spec.strategy.canary.trafficRouting, the weights the
// controller last set on them (status.canary.weights: every router holds
// the same split) and the header and mirror routes in place.
type Traffic struct {
	Routers []Router `json:"routers"`
	// MaxWeight is the total the weights are out of (maxTrafficWeight).
	MaxWeight int32 `json:"maxWeight"`
	// Weights are status.canary.weights, absent until the controller first
	// set them; Verified nil: not verified at the load balancer.
	Weights *rampv1.TrafficWeights `json:"weights,omitempty"`
	// Managed are trafficRouting.managedRoutes, in precedence order.
	Managed []string `json:"managedRoutes,omitempty"`
	// Routes are the managed routes in place: the setHeaderRoute and
	// setMirrorRoute steps up to the current one (none outside an update
	// or after an abort).
	Routes []Route `json:"routes,omitempty"`
}

// Router is one configured router and the objects it updates.
type Router struct {
	Name    string   `json:"name"`
	Objects []string `json:"objects,omitempty"`
}

// Route is one managed route in place.
type Route struct {
	Name string `json:"name"`
	// Kind is "header" or "mirror".
	Kind  string `json:"kind"`
	Match string `json:"match"`
}

// TrafficOf is ro's traffic, nil without trafficRouting.
func TrafficOf(ro *rampv1.Rollout) *Traffic {
	c := ro.Spec.Strategy.Canary
	if c == nil || c.TrafficRouting == nil {
		return nil
	}
	tr := c.TrafficRouting
	t := &Traffic{Routers: Routers(tr, ro.Name), MaxWeight: c.MaxTrafficWeight()}
	for _, m := range tr.ManagedRoutes {
		t.Managed = append(t.Managed, m.Name)
	}
	t.Weights = ro.Status.Canary.Weights
	if !updating(ro) || ro.Status.Abort {
		return t
	}
	var idx int32
	if i := ro.Status.CurrentStepIndex; i != nil {
		idx = *i
	}
	headers, mirrors := plan.ManagedRoutesAt(c, idx)
	for _, h := range headers {
		var ms []string
		for _, m := range h.Match {
			ms = append(ms, "header "+m.HeaderName+" "+stringMatch(m.HeaderValue))
		}
		t.Routes = append(t.Routes, Route{Name: h.Name, Kind: "header", Match: strings.Join(ms, " and ")})
	}
	for _, m := range mirrors {
		t.Routes = append(t.Routes, Route{Name: m.Name, Kind: "mirror", Match: mirrorMatch(m)})
	}
	return t
}

// stringMatch is `exact "v"`, `prefix "v"` or `regex "v"`.
func stringMatch(m *rampv1.StringMatch) string {
	switch {
	case m == nil:
		return "present"
	case m.Prefix != "":
		return fmt.Sprintf("prefix %q", m.Prefix)
	case m.Regex != "":
		return fmt.Sprintf("regex %q", m.Regex)
	}
	return fmt.Sprintf("exact %q", m.Exact)
}

// mirrorMatch is the route's blocks, ORed, and the share mirrored.
func mirrorMatch(m rampv1.SetMirrorRoute) string {
	var blocks []string
	for _, rm := range m.Match {
		var cs []string
		if rm.Method != nil {
			cs = append(cs, "method "+stringMatch(rm.Method))
		}
		if rm.Path != nil {
			cs = append(cs, "path "+stringMatch(rm.Path))
		}
		for _, h := range slices.Sorted(maps.Keys(rm.Headers)) {
			v := rm.Headers[h]
			cs = append(cs, "header "+h+" "+stringMatch(&v))
		}
		blocks = append(blocks, strings.Join(cs, " and "))
	}
	pct := int32(100)
	if m.Percentage != nil {
		pct = *m.Percentage
	}
	return fmt.Sprintf("%s: %d%% mirrored to the canary", strings.Join(blocks, ", or "), pct)
}

// Routers are the routers tr configures, by name, with the objects each
// updates; rollout names the Rollout (SMI's default TrafficSplit).
func Routers(tr *rampv1.RolloutTrafficRouting, rollout string) []Router {
	var out []Router
	add := func(name string, objs ...string) {
		out = append(out, Router{Name: name, Objects: objs})
	}
	if r := tr.ALB; r != nil {
		add("alb", prefixed("Ingress ", append([]string{r.Ingress}, r.Ingresses...))...)
	}
	if r := tr.Ambassador; r != nil {
		add("ambassador", prefixed("Mapping ", r.Mappings)...)
	}
	if r := tr.Apisix; r != nil && r.Route != nil {
		add("apisix", "ApisixRoute "+r.Route.Name)
	} else if r != nil {
		add("apisix")
	}
	if r := tr.AppMesh; r != nil && r.VirtualService != nil {
		add("appMesh", "VirtualService "+r.VirtualService.Name)
	} else if r != nil {
		add("appMesh")
	}
	if r := tr.Istio; r != nil {
		var vs []string
		if r.VirtualService != nil {
			vs = append(vs, r.VirtualService.Name)
		}
		for _, v := range r.VirtualServices {
			vs = append(vs, v.Name)
		}
		objs := prefixed("VirtualService ", vs)
		if d := r.DestinationRule; d != nil {
			objs = append(objs, "DestinationRule "+d.Name)
		}
		add("istio", objs...)
	}
	if r := tr.Nginx; r != nil {
		add("nginx", prefixed("Ingress ", append([]string{r.StableIngress}, r.StableIngresses...))...)
	}
	if r := tr.SMI; r != nil {
		add("smi", "TrafficSplit "+cmp.Or(r.TrafficSplitName, rollout))
	}
	if r := tr.Traefik; r != nil {
		add("traefik", "TraefikService "+r.WeightedTraefikServiceName)
	}
	for _, name := range slices.Sorted(maps.Keys(tr.Plugins)) {
		add("plugin " + name)
	}
	return out
}

// prefixed is kind+name for every non-empty name.
func prefixed(kind string, names []string) []string {
	var out []string
	for _, n := range names {
		if n != "" {
			out = append(out, kind+n)
		}
	}
	return out
}
