package istio

import (
	"fmt"
	"strings"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// dests tells a route's canary and stable destinations apart: by Service
// name (host-level) or, with a DestinationRule, by subset name.
type dests struct {
	bySubset       bool
	canary, stable string
}

// destsOf reads how ro's routes name the canary and stable destinations.
func destsOf(ro *rampv1.Rollout) dests {
	if dr := config(ro).DestinationRule; dr != nil {
		return dests{bySubset: true, canary: dr.CanarySubsetName, stable: dr.StableSubsetName}
	}
	c := ro.Spec.Strategy.Canary
	return dests{canary: c.CanaryService, stable: c.StableService}
}

// is reports whether dest (a route's destination) is the Service or subset
// name. A host matches a Service by its first label, so "svc",
// "svc.ns" and "svc.ns.svc.cluster.local" all name Service svc.
func (d dests) is(dest map[string]any, name string) bool {
	if d.bySubset {
		s, _ := dest["subset"].(string)
		return s == name
	}
	host, _ := dest["host"].(string)
	first, _, _ := strings.Cut(host, ".")
	return first == name
}

// kind names what canary and stable are, for error messages.
func (d dests) kind() string {
	if d.bySubset {
		return "subset"
	}
	return "Service"
}

// canaryDest is the canary destination of route, nil when it has none.
func (d dests) canaryDest(route map[string]any) map[string]any {
	for _, v := range list(route, "route") {
		rd, _ := v.(map[string]any)
		if dest, _ := rd["destination"].(map[string]any); dest != nil && d.is(dest, d.canary) {
			return dest
		}
	}
	return nil
}

// setWeights sets the weight of route's canary and stable destinations
// (every one of them, should a name appear twice). Other destinations are
// left as they are. Missing either is an error naming it.
func (d dests) setWeights(route map[string]any, canary, stable int32) error {
	var haveCanary, haveStable bool
	for _, v := range list(route, "route") {
		rd, _ := v.(map[string]any)
		dest, _ := rd["destination"].(map[string]any)
		switch {
		case dest == nil:
		case d.is(dest, d.canary):
			rd["weight"] = int64(canary)
			haveCanary = true
		case d.is(dest, d.stable):
			rd["weight"] = int64(stable)
			haveStable = true
		}
	}
	if !haveCanary {
		return fmt.Errorf("no destination for the canary %s %q", d.kind(), d.canary)
	}
	if !haveStable {
		return fmt.Errorf("no destination for the stable %s %q", d.kind(), d.stable)
	}
	return nil
}

// list is m[key] as a list, nil when it is not one.
func list(m map[string]any, key string) []any {
	l, _ := m[key].([]any)
	return l
}

// number is v as an int64, for the JSON numbers of unstructured objects.
func number(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int32:
		return int64(n), true
	case int:
		return int64(n), true
	case float64:
		return int64(n), n == float64(int64(n))
	}
	return 0, false
}
