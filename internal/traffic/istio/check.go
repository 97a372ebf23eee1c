package istio

import (
	"fmt"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// field is the path of the router's configuration, for error messages.
const field = "spec.strategy.canary.trafficRouting.istio"

// Check validates trafficRouting.istio without any API call. What only the
// objects can tell (a route or subset that does not exist) is Sync's error.
func (r *Router) Check(ro *rampv1.Rollout) error {
	cfg := config(ro)
	switch {
	case cfg == nil:
		return fmt.Errorf("%s: required", field)
	case cfg.VirtualService == nil && len(cfg.VirtualServices) == 0:
		return fmt.Errorf("%s: virtualService or virtualServices required", field)
	case cfg.VirtualService != nil && len(cfg.VirtualServices) > 0:
		return fmt.Errorf("%s: set virtualService or virtualServices, not both", field)
	}
	managed := managedNames(ro)
	seen := map[string]bool{}
	for i, vs := range virtualServices(cfg) {
		path := field + ".virtualService"
		if cfg.VirtualService == nil {
			path = fmt.Sprintf("%s.virtualServices[%d]", field, i)
		}
		if vs.Name == "" {
			return fmt.Errorf("%s.name: required", path)
		}
		if seen[vs.Name] {
			return fmt.Errorf("%s.name: VirtualService %q is listed twice: list all its routes in one entry", path, vs.Name)
		}
		seen[vs.Name] = true
		if err := checkRoutes(path, vs, managed); err != nil {
			return err
		}
	}
	if cfg.DestinationRule != nil {
		return checkDestinationRule(cfg.DestinationRule)
	}
	c := ro.Spec.Strategy.Canary
	if c.CanaryService == "" {
		return fmt.Errorf("spec.strategy.canary.canaryService: required by %s without destinationRule", field)
	}
	if c.StableService == "" {
		return fmt.Errorf("spec.strategy.canary.stableService: required by %s without destinationRule", field)
	}
	return nil
}

// checkRoutes validates the route selectors of one VirtualService.
func checkRoutes(path string, vs rampv1.IstioVirtualService, managed map[string]bool) error {
	for j, name := range vs.Routes {
		switch {
		case name == "":
			return fmt.Errorf("%s.routes[%d]: empty route name", path, j)
		case managed[name]:
			return fmt.Errorf("%s.routes[%d]: %q is a managed route (trafficRouting.managedRoutes), not one to weight", path, j, name)
		}
	}
	for j, t := range vs.TLSRoutes {
		if t.Port < 0 || t.Port > 65535 {
			return fmt.Errorf("%s.tlsRoutes[%d].port: %d is not a port", path, j, t.Port)
		}
	}
	for j, t := range vs.TCPRoutes {
		if t.Port < 0 || t.Port > 65535 {
			return fmt.Errorf("%s.tcpRoutes[%d].port: %d is not a port", path, j, t.Port)
		}
	}
	return nil
}

// checkDestinationRule validates the subset names.
func checkDestinationRule(dr *rampv1.IstioDestinationRule) error {
	path := field + ".destinationRule"
	switch {
	case dr.Name == "":
		return fmt.Errorf("%s.name: required", path)
	case dr.CanarySubsetName == "":
		return fmt.Errorf("%s.canarySubsetName: required", path)
	case dr.StableSubsetName == "":
		return fmt.Errorf("%s.stableSubsetName: required", path)
	case dr.CanarySubsetName == dr.StableSubsetName:
		return fmt.Errorf("%s: canarySubsetName and stableSubsetName must differ", path)
	}
	for i, name := range dr.AdditionalSubsetNames {
		switch name {
		case "":
			return fmt.Errorf("%s.additionalSubsetNames[%d]: empty subset name", path, i)
		case dr.CanarySubsetName:
			return fmt.Errorf("%s.additionalSubsetNames[%d]: %q is the canary subset", path, i, name)
		}
	}
	return nil
}
