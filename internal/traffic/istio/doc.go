// Package istio is the Istio traffic router. It splits traffic between the
// stable and canary versions by setting the destination weights of selected
// http, tls and tcp routes in VirtualServices: across the canary and stable
// Services (host-level), or, with a DestinationRule, across two subsets of
// one host (subset-level), whose labels it points at the canary and stable
// pod-template hashes. It places the managed header and mirror routes at the
// top of the VirtualServices' http routes.
//
// It writes only those fields, through internal/traffic/objects, on
// networking.istio.io/v1 objects held as unstructured: it must not import
// Istio's Go types, the controllers or the planner.
package istio
