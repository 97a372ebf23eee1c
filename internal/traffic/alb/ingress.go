package alb

import (
	"maps"
	"slices"
	"sort"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// changes says what apply changed on an Ingress (for the Event).
type changes struct{ weight, headers bool }

// apply makes u carry want: the forward action with want's weights and, for
// each managed route of the Rollout, the header route's annotations and
// rule path while want holds it and none of them otherwise; the marker
// lists what the Rollout manages. Another Rollout's annotations and paths
// are left alone, and claiming one of them is an error.
func (a action) apply(u *unstructured.Unstructured, want traffic.Route) (changes, error) {
	var ch changes
	ann := maps.Clone(u.GetAnnotations())
	if ann == nil {
		ann = map[string]string{}
	}
	m, err := parseMarker(ann[rampv1.ManagedALBAnnotationsAnnotation])
	if err != nil {
		return ch, err
	}
	weights, err := a.value(want)
	if err != nil {
		return ch, err
	}
	if err := m.claim(a.rollout, a.key()); err != nil {
		return ch, err
	}
	if !sameJSON(ann[a.key()], weights) {
		ann[a.key()], ch.weight = weights, true
	}
	add, drop, changed, err := a.headerAnnotations(ann, m, want.Headers)
	if err != nil {
		return ch, err
	}
	ch.headers = editPaths(u, add, drop, a.routes) || changed
	if ann[rampv1.ManagedALBAnnotationsAnnotation], err = m.encode(); err != nil {
		return ch, err
	}
	if !maps.Equal(ann, u.GetAnnotations()) {
		u.SetAnnotations(ann)
	}
	return ch, nil
}

// headerAnnotations sets in ann the action and conditions of each header
// route in force and deletes those of the Rollout's other managed routes,
// keeping the marker m in step. It returns the routes whose paths go in
// (add) and out (drop), and whether an annotation changed.
func (a action) headerAnnotations(ann map[string]string, m *marker, headers []rampv1.SetHeaderRoute) (add, drop []string, changed bool, err error) {
	held := map[string]rampv1.SetHeaderRoute{}
	for _, h := range headers {
		held[h.Name] = h
	}
	forward, err := a.headerAction()
	if err != nil {
		return nil, nil, false, err
	}
	for _, name := range a.routes {
		actionKey, condKey := a.headerKeys(name)
		h, on := held[name]
		if !on {
			if m.owner(a.rollout, actionKey) != "" || m.owner(a.rollout, condKey) != "" {
				continue // another Rollout's route of the same name
			}
			for _, k := range []string{actionKey, condKey} {
				if _, ok := ann[k]; ok {
					delete(ann, k)
					changed = true
				}
				m.release(a.rollout, k)
			}
			drop = append(drop, name)
			continue
		}
		cond, err := conditions(h)
		if err != nil {
			return nil, nil, false, err
		}
		for k, v := range map[string]string{actionKey: forward, condKey: cond} {
			if !sameJSON(ann[k], v) {
				ann[k], changed = v, true
			}
		}
		if err := m.claim(a.rollout, actionKey); err != nil {
			return nil, nil, false, err
		}
		if err := m.claim(a.rollout, condKey); err != nil {
			return nil, nil, false, err
		}
		add = append(add, name)
	}
	return add, drop, changed, nil
}

// editPaths makes the rules of u carry the paths of the header routes add
// (one first in every rule, unless some rule already routes to it) and
// none of the routes drop, then orders every rule's paths as Argo
// Rollouts does: paths of managed routes first, in the order of routes,
// the others after them as they were. It reports whether anything changed.
func editPaths(u *unstructured.Unstructured, add, drop, routes []string) bool {
	spec, _ := nested(u.Object, "spec")
	rules, _ := spec["rules"].([]any)
	var missing []string
	for _, name := range add {
		if !routesTo(rules, name) {
			missing = append(missing, name)
		}
	}
	rank := func(p any) int {
		if i := slices.Index(routes, backendName(p)); i >= 0 {
			return i
		}
		return len(routes)
	}
	changed := false
	for _, r := range rules {
		http, ok := nested(r, "http")
		if !ok {
			continue
		}
		old, _ := http["paths"].([]any)
		paths := slices.DeleteFunc(slices.Clone(old), func(p any) bool { return slices.Contains(drop, backendName(p)) })
		for _, name := range missing {
			paths = append([]any{routePath(name)}, paths...)
		}
		sort.SliceStable(paths, func(i, j int) bool { return rank(paths[i]) < rank(paths[j]) })
		if len(old) == 0 && len(paths) == 0 || apiequality.Semantic.DeepEqual(old, paths) {
			continue
		}
		http["paths"], changed = paths, true
	}
	return changed
}

// routePath is the rule path of header route name: every path (/*) to the
// backend named for the route, port name use-annotation.
func routePath(name string) map[string]any {
	return map[string]any{
		"path":     "/*",
		"pathType": "ImplementationSpecific",
		"backend": map[string]any{"service": map[string]any{
			"name": name,
			"port": map[string]any{"name": useAnnotation},
		}},
	}
}

// routesTo says whether a path of any rule has backend Service name.
func routesTo(rules []any, name string) bool {
	for _, r := range rules {
		http, _ := nested(r, "http")
		paths, _ := http["paths"].([]any)
		for _, p := range paths {
			if backendName(p) == name {
				return true
			}
		}
	}
	return false
}

// backendName is the backend Service of a rule path, "" if it has none.
func backendName(p any) string {
	svc, _ := nested(p, "backend", "service")
	name, _ := svc["name"].(string)
	return name
}

// nested is the object at keys under v, if each level is an object.
func nested(v any, keys ...string) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	for _, k := range keys {
		if !ok {
			return nil, false
		}
		m, ok = m[k].(map[string]any)
	}
	return m, ok
}
