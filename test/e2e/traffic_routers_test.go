//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	_ "github.com/ramp-rollouts/ramp/internal/builtin" // every router this build ships
	"github.com/ramp-rollouts/ramp/internal/traffic"
	"github.com/ramp-rollouts/ramp/internal/traffic/alb"
	"github.com/ramp-rollouts/ramp/internal/traffic/gatewayapi"
	"github.com/ramp-rollouts/ramp/internal/traffic/istio"
	"github.com/ramp-rollouts/ramp/internal/traffic/nginx"
	"github.com/ramp-rollouts/ramp/internal/traffic/smi"
)

// routeState is what a router's objects send where, as the test reads them.
type routeState struct {
	canary, stable int64
	header         bool // the managed header route "h" is present
}

func (s routeState) String() string {
	h := ""
	if s.header {
		h = "+h"
	}
	return fmt.Sprintf("%d/%d%s", s.canary, s.stable, h)
}

// routerCase describes one router for the shared traffic scenario: the
// objects the user creates, the trafficRouting block, and how to read the
// route back.
type routerCase struct {
	name    string
	headers bool // can express setHeaderRoute
	gvk     schema.GroupVersionKind
	objects func(ro string) string
	routing func(ro string) string
	read    func(get getter, ns, ro string) (routeState, error)
}

// getter reads one object (live, or as a watch event carried it).
type getter func(gvk schema.GroupVersionKind, ns, name string) (*unstructured.Unstructured, error)

// liveGet reads from the API server.
func liveGet(ctx context.Context) getter {
	return func(gvk schema.GroupVersionKind, ns, name string) (*unstructured.Unstructured, error) {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		return u, env.client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, u)
	}
}

// eventGet answers with the event's object when it is the one asked for.
func eventGet(ctx context.Context, obj client.Object) getter {
	return func(gvk schema.GroupVersionKind, ns, name string) (*unstructured.Unstructured, error) {
		if u, ok := obj.(*unstructured.Unstructured); ok && u.GroupVersionKind().GroupKind() == gvk.GroupKind() && u.GetName() == name {
			return u, nil
		}
		return liveGet(ctx)(gvk, ns, name)
	}
}

var (
	httpRouteGVK      = schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "HTTPRoute"}
	virtualServiceGVK = schema.GroupVersionKind{Group: "networking.istio.io", Version: "v1", Kind: "VirtualService"}
	ingressGVK        = schema.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"}
	trafficSplitGVK   = schema.GroupVersionKind{Group: "split.smi-spec.io", Version: "v1alpha4", Kind: "TrafficSplit"}
)

// weightsOf maps backend names to weights in a list of maps.
func weightsOf(list []any, nameAt, weightAt []string) map[string]int64 {
	out := map[string]int64{}
	for _, e := range list {
		m, _ := e.(map[string]any)
		name, _, _ := unstructured.NestedString(m, nameAt...)
		w, _, _ := unstructured.NestedFieldNoCopy(m, weightAt...)
		switch v := w.(type) {
		case int64:
			out[name] = v
		case float64:
			out[name] = int64(v)
		}
	}
	return out
}

var routerCases = []routerCase{{
	name: "gatewayapi", headers: true, gvk: httpRouteGVK,
	objects: func(ro string) string {
		return fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: %[1]s}
spec:
  parentRefs: [{name: gateway}]
  rules:
  - backendRefs:
    - {name: %[1]s-stable, port: 80, weight: 100}
    - {name: %[1]s-canary, port: 80, weight: 0}
`, ro)
	},
	routing: func(ro string) string {
		return fmt.Sprintf("plugins:\n  argoproj-labs/gatewayAPI: {httpRoute: %s}", ro)
	},
	read: func(get getter, ns, ro string) (routeState, error) {
		u, err := get(httpRouteGVK, ns, ro)
		if err != nil {
			return routeState{}, err
		}
		rules, _, _ := unstructured.NestedSlice(u.Object, "spec", "rules")
		var s routeState
		for _, r := range rules {
			m := r.(map[string]any)
			if name, _, _ := unstructured.NestedString(m, "name"); name == "h" {
				s.header = true
				continue
			}
			refs, _, _ := unstructured.NestedSlice(m, "backendRefs")
			w := weightsOf(refs, []string{"name"}, []string{"weight"})
			s.canary, s.stable = w[ro+"-canary"], w[ro+"-stable"]
		}
		return s, nil
	},
}, {
	name: "istio", headers: true, gvk: virtualServiceGVK,
	objects: func(ro string) string {
		return fmt.Sprintf(`apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: %[1]s}
spec:
  hosts: [%[1]s.example]
  http:
  - name: primary
    route:
    - destination: {host: %[1]s-stable}
      weight: 100
    - destination: {host: %[1]s-canary}
      weight: 0
`, ro)
	},
	routing: func(ro string) string {
		return fmt.Sprintf("istio:\n  virtualService: {name: %s, routes: [primary]}", ro)
	},
	read: func(get getter, ns, ro string) (routeState, error) {
		u, err := get(virtualServiceGVK, ns, ro)
		if err != nil {
			return routeState{}, err
		}
		routes, _, _ := unstructured.NestedSlice(u.Object, "spec", "http")
		var s routeState
		for _, r := range routes {
			m := r.(map[string]any)
			switch name, _, _ := unstructured.NestedString(m, "name"); name {
			case "h":
				s.header = true
			case "primary":
				dests, _, _ := unstructured.NestedSlice(m, "route")
				w := weightsOf(dests, []string{"destination", "host"}, []string{"weight"})
				s.canary, s.stable = w[ro+"-canary"], w[ro+"-stable"]
			}
		}
		return s, nil
	},
}, {
	name: "nginx", headers: true, gvk: ingressGVK,
	objects: func(ro string) string { return ingressYAML(ro, ro+"-stable", "80", "") },
	routing: func(ro string) string { return "nginx: {stableIngress: " + ro + "}" },
	read: func(get getter, ns, ro string) (routeState, error) {
		u, err := get(ingressGVK, ns, ro+"-"+ro+"-canary")
		if apierrors.IsNotFound(err) {
			return routeState{canary: 0, stable: 100}, nil // no canary Ingress: all on stable
		} else if err != nil {
			return routeState{}, err
		}
		a := u.GetAnnotations()
		w, _ := strconv.ParseInt(a["nginx.ingress.kubernetes.io/canary-weight"], 10, 64)
		_, h := a["nginx.ingress.kubernetes.io/canary-by-header"]
		return routeState{canary: w, stable: 100 - w, header: h}, nil
	},
}, {
	name: "alb", headers: true, gvk: ingressGVK,
	objects: func(ro string) string { return ingressYAML(ro, ro+"-stable", "", "use-annotation") },
	routing: func(ro string) string { return "alb: {ingress: " + ro + ", servicePort: 80}" },
	read: func(get getter, ns, ro string) (routeState, error) {
		u, err := get(ingressGVK, ns, ro)
		if err != nil {
			return routeState{}, err
		}
		_, h := u.GetAnnotations()["alb.ingress.kubernetes.io/conditions.h"]
		raw, ok := u.GetAnnotations()["alb.ingress.kubernetes.io/actions."+ro+"-stable"]
		if !ok {
			return routeState{canary: 0, stable: 100, header: h}, nil
		}
		var action struct {
			ForwardConfig struct {
				TargetGroups []struct {
					ServiceName string `json:"ServiceName"`
					Weight      int64  `json:"Weight"`
				} `json:"TargetGroups"`
			} `json:"ForwardConfig"`
		}
		if err := json.Unmarshal([]byte(raw), &action); err != nil {
			return routeState{}, err
		}
		s := routeState{header: h}
		for _, tg := range action.ForwardConfig.TargetGroups {
			switch tg.ServiceName {
			case ro + "-canary":
				s.canary = tg.Weight
			case ro + "-stable":
				s.stable = tg.Weight
			}
		}
		return s, nil
	},
}, {
	name: "smi", gvk: trafficSplitGVK,
	objects: func(string) string { return "" },
	routing: func(ro string) string { return "smi: {trafficSplitName: " + ro + "}" },
	read: func(get getter, ns, ro string) (routeState, error) {
		u, err := get(trafficSplitGVK, ns, ro)
		if apierrors.IsNotFound(err) {
			return routeState{canary: 0, stable: 100}, nil
		} else if err != nil {
			return routeState{}, err
		}
		backends, _, _ := unstructured.NestedSlice(u.Object, "spec", "backends")
		w := weightsOf(backends, []string{"service"}, []string{"weight"})
		return routeState{canary: w[ro+"-canary"], stable: w[ro+"-stable"]}, nil
	},
}}

// ingressYAML is an Ingress routing / to svc on a port number or name.
func ingressYAML(name, svc, number, portName string) string {
	port := "number: " + number
	if portName != "" {
		port = "name: " + portName
	}
	return fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: %s}
spec:
  ingressClassName: nginx
  rules:
  - host: web.example
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service: {name: %s, port: {%s}}
`, name, svc, port)
}

// TestRouterCasesCoverEveryRouter: every router Ramp registers runs the
// traffic scenario (a new router without an e2e case fails here).
func TestRouterCasesCoverEveryRouter(t *testing.T) {
	names := map[string]string{"gatewayapi": gatewayapi.Name, "istio": istio.Name, "nginx": nginx.Name, "alb": alb.Name, "smi": smi.Name}
	covered := map[string]bool{}
	for _, rc := range routerCases {
		covered[names[rc.name]] = true
		d, err := traffic.Lookup(names[rc.name])
		if err != nil {
			t.Errorf("router case %s: %v", rc.name, err)
			continue
		}
		if d.Caps.HeaderRoutes != rc.headers {
			t.Errorf("router case %s: headers %v, but the router's capability is %v", rc.name, rc.headers, d.Caps.HeaderRoutes)
		}
	}
	for _, name := range traffic.Names() {
		if !covered[name] {
			t.Errorf("router %q has no case in routerCases", name)
		}
	}
}
