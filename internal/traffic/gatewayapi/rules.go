package gatewayapi

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// target is what setRules makes one HTTPRoute carry.
type target struct {
	// ns is the Rollout's namespace, where its Services are.
	ns string
	// canary and stable are the Service names.
	canary, stable string
	// canaryWeight and stableWeight are their backendRef weights.
	canaryWeight, stableWeight int64
	// headers are the header routes to hold, in precedence order; nil for
	// an HTTPRoute that takes none.
	headers []rampv1.SetHeaderRoute
	// mirrors are the mirror routes to hold, in precedence order.
	mirrors []rampv1.SetMirrorRoute
	// managed are the rule names in trafficRouting.managedRoutes: rules
	// with one of these names belong to the router.
	managed map[string]bool
}

// newTarget is what ro wants of an HTTPRoute, with or without header routes.
func newTarget(ro *rampv1.Rollout, want traffic.Route, headerRoutes bool) target {
	c := ro.Spec.Strategy.Canary
	t := target{
		ns:           ro.Namespace,
		canary:       c.CanaryService,
		stable:       c.StableService,
		canaryWeight: int64(want.Canary),
		stableWeight: int64(want.Stable()),
		mirrors:      want.Mirrors,
		managed:      map[string]bool{},
	}
	if headerRoutes {
		t.headers = want.Headers
	}
	if c.TrafficRouting != nil {
		for _, m := range c.TrafficRouting.ManagedRoutes {
			t.managed[m.Name] = true
		}
	}
	return t
}

// setRules sets, in the HTTPRoute u, the canary and stable weights of every
// rule that routes to both Services, and replaces the managed rules with the
// header rules then the mirror rules of t, ahead of all other rules. Nothing
// else in u changes. It is an error when no rule routes to both Services.
func setRules(u *unstructured.Unstructured, t target) error {
	rules, _, err := unstructured.NestedSlice(u.Object, "spec", "rules")
	if err != nil {
		return fmt.Errorf("spec.rules: %w", err)
	}
	var kept []any
	var weighted map[string]any // the first rule that routes to both Services
	for i, r := range rules {
		rule, ok := r.(map[string]any)
		if !ok {
			return fmt.Errorf("spec.rules[%d]: not an object", i)
		}
		if name, _ := rule["name"].(string); t.managed[name] {
			continue
		}
		if t.setWeights(rule, u.GetNamespace()) && weighted == nil {
			weighted = rule
		}
		kept = append(kept, rule)
	}
	if weighted == nil {
		return fmt.Errorf("no rule in spec.rules has backendRefs to both Service %q and Service %q", t.canary, t.stable)
	}
	canaryRef := t.canaryRef(weighted, u.GetNamespace())
	var managed []any
	for _, h := range t.headers {
		if len(h.Match) == 0 {
			continue // no match removes the route
		}
		if !t.managed[h.Name] {
			return fmt.Errorf("header route %q is not in trafficRouting.managedRoutes", h.Name)
		}
		rule, err := headerRule(h, weighted, canaryRef)
		if err != nil {
			return fmt.Errorf("header route %q: %w", h.Name, err)
		}
		managed = append(managed, rule)
	}
	for _, m := range t.mirrors {
		if len(m.Match) == 0 {
			continue
		}
		if !t.managed[m.Name] {
			return fmt.Errorf("mirror route %q is not in trafficRouting.managedRoutes", m.Name)
		}
		rule, err := mirrorRule(m, weighted, canaryRef)
		if err != nil {
			return fmt.Errorf("mirror route %q: %w", m.Name, err)
		}
		managed = append(managed, rule)
	}
	return unstructured.SetNestedSlice(u.Object, append(managed, kept...), "spec", "rules")
}

// setWeights sets the weights of the canary and stable backendRefs of rule,
// if it has both, and reports whether it did.
func (t target) setWeights(rule map[string]any, routeNS string) bool {
	refs, _ := rule["backendRefs"].([]any)
	var canary, stable []map[string]any
	for _, r := range refs {
		ref, _ := r.(map[string]any)
		switch {
		case t.isService(ref, t.canary, routeNS):
			canary = append(canary, ref)
		case t.isService(ref, t.stable, routeNS):
			stable = append(stable, ref)
		}
	}
	if len(canary) == 0 || len(stable) == 0 {
		return false
	}
	for _, ref := range canary {
		ref["weight"] = t.canaryWeight
	}
	for _, ref := range stable {
		ref["weight"] = t.stableWeight
	}
	return true
}

// isService reports whether the backendRef ref is the Service name in the
// Rollout's namespace (a backendRef without namespace is in the HTTPRoute's).
func (t target) isService(ref map[string]any, name, routeNS string) bool {
	if ref == nil {
		return false
	}
	n, _ := ref["name"].(string)
	group, _ := ref["group"].(string)
	kind, _ := ref["kind"].(string)
	ns, _ := ref["namespace"].(string)
	if ns == "" {
		ns = routeNS
	}
	return n == name && group == "" && (kind == "" || kind == "Service") && ns == t.ns
}

// canaryRef is a reference to the canary Service with the port (and
// namespace) of its backendRef in rule, which routes to it.
func (t target) canaryRef(rule map[string]any, routeNS string) map[string]any {
	ref := map[string]any{"group": "", "kind": "Service", "name": t.canary}
	refs, _ := rule["backendRefs"].([]any)
	for _, r := range refs {
		from, _ := r.(map[string]any)
		if !t.isService(from, t.canary, routeNS) {
			continue
		}
		for _, k := range []string{"namespace", "port"} {
			if v, ok := from[k]; ok {
				ref[k] = runtime.DeepCopyJSONValue(v)
			}
		}
		break
	}
	return ref
}

// headerRule sends the requests that match weighted and the header
// conditions of h to the canary only.
func headerRule(h rampv1.SetHeaderRoute, weighted, canaryRef map[string]any) (map[string]any, error) {
	headers, err := headerMatches(h.Match)
	if err != nil {
		return nil, err
	}
	matches, _ := weighted["matches"].([]any)
	if len(matches) == 0 {
		matches = []any{map[string]any{}}
	}
	out := make([]any, 0, len(matches))
	for _, m := range matches {
		from, _ := m.(map[string]any)
		match := map[string]any{"path": defaultPath(), "headers": runtime.DeepCopyJSONValue(headers)}
		for _, k := range []string{"path", "method"} {
			if v, ok := from[k]; ok {
				match[k] = runtime.DeepCopyJSONValue(v)
			}
		}
		out = append(out, match)
	}
	ref := runtime.DeepCopyJSONValue(canaryRef).(map[string]any)
	ref["weight"] = int64(1)
	return map[string]any{"name": h.Name, "matches": out, "backendRefs": []any{ref}}, nil
}

// mirrorRule routes the requests that match m as weighted does and mirrors
// them (Percentage of them, if set) to the canary.
func mirrorRule(m rampv1.SetMirrorRoute, weighted, canaryRef map[string]any) (map[string]any, error) {
	matches, err := mirrorMatches(m.Match)
	if err != nil {
		return nil, err
	}
	mirror := map[string]any{"backendRef": runtime.DeepCopyJSONValue(canaryRef)}
	if m.Percentage != nil {
		mirror["percent"] = int64(*m.Percentage)
	}
	rule := map[string]any{
		"name":    m.Name,
		"matches": matches,
		"filters": []any{map[string]any{"type": "RequestMirror", "requestMirror": mirror}},
	}
	if refs, ok := weighted["backendRefs"]; ok {
		rule["backendRefs"] = runtime.DeepCopyJSONValue(refs)
	}
	return rule, nil
}
