package gatewayapi

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// httpRouteGVK is the HTTPRoute version the router reads and writes (GA
// since Gateway API v1.0).
var httpRouteGVK = schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "HTTPRoute"}

// pluginField is where the router's configuration lives in a Rollout.
var pluginField = fmt.Sprintf("spec.strategy.canary.trafficRouting.plugins[%q]", Name)

// pluginConfig is the JSON the Argo Rollouts Gateway API plugin takes.
// Keys Ramp does not use (grpcRoute, tcpRoute, configMap, ...) are ignored.
type pluginConfig struct {
	HTTPRoute  string `json:"httpRoute"`
	HTTPRoutes []struct {
		Name            string `json:"name"`
		UseHeaderRoutes bool   `json:"useHeaderRoutes"`
	} `json:"httpRoutes"`
	Namespace string `json:"namespace"`
}

// httpRoute is one HTTPRoute the router keeps.
type httpRoute struct {
	namespace, name string
	// headerRoutes says whether the managed header routes go into it: always
	// for the single httpRoute form, per route (useHeaderRoutes) otherwise.
	headerRoutes bool
}

func (h httpRoute) ref() traffic.Ref {
	return traffic.Ref{GVK: httpRouteGVK, Namespace: h.namespace, Name: h.name}
}

// httpRoutes parses the plugin configuration of ro into the HTTPRoutes to
// keep: httpRoute first, then httpRoutes in order, each name once (a name
// given twice takes header routes if either entry does). The namespace
// defaults to the Rollout's.
func httpRoutes(ro *rampv1.Rollout) ([]httpRoute, error) {
	tr := trafficRouting(ro)
	if tr == nil {
		return nil, fmt.Errorf("%s: required", pluginField)
	}
	raw, ok := tr.Plugins[Name]
	if !ok {
		return nil, fmt.Errorf("%s: required", pluginField)
	}
	var cfg pluginConfig
	if len(raw.Raw) > 0 {
		if err := json.Unmarshal(raw.Raw, &cfg); err != nil {
			return nil, fmt.Errorf("%s: invalid JSON: %w", pluginField, err)
		}
	}
	if cfg.HTTPRoute == "" && len(cfg.HTTPRoutes) == 0 {
		return nil, fmt.Errorf("%s.httpRoute: required (or httpRoutes)", pluginField)
	}
	ns := cfg.Namespace
	if ns == "" {
		ns = ro.Namespace
	}
	var routes []httpRoute
	add := func(name string, headerRoutes bool) {
		for i := range routes {
			if routes[i].name == name {
				routes[i].headerRoutes = routes[i].headerRoutes || headerRoutes
				return
			}
		}
		routes = append(routes, httpRoute{namespace: ns, name: name, headerRoutes: headerRoutes})
	}
	if cfg.HTTPRoute != "" {
		add(cfg.HTTPRoute, true)
	}
	for i, r := range cfg.HTTPRoutes {
		if r.Name == "" {
			return nil, fmt.Errorf("%s.httpRoutes[%d].name: required", pluginField, i)
		}
		add(r.Name, r.UseHeaderRoutes)
	}
	return routes, nil
}

func trafficRouting(ro *rampv1.Rollout) *rampv1.RolloutTrafficRouting {
	if ro.Spec.Strategy.Canary == nil {
		return nil
	}
	return ro.Spec.Strategy.Canary.TrafficRouting
}
