//go:build conformance

package conformance

import (
	"strings"
	"testing"
)

// Traffic routing: the route objects each controller writes are part of the
// observation (observe reads VirtualServices, DestinationRules, Ingresses,
// TrafficSplits and HTTPRoutes).

const canaryServices = `apiVersion: v1
kind: Service
metadata: {name: stable}
spec: {selector: {app: app}, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: canary}
spec: {selector: {app: app}, ports: [{port: 80}]}
---
`

const istioHostVS = `apiVersion: networking.istio.io/v1alpha3
kind: VirtualService
metadata: {name: vsvc}
spec:
  hosts: [app.example]
  http:
  - name: primary
    route:
    - destination: {host: stable}
      weight: 100
    - destination: {host: canary}
      weight: 0
---
`

const istioSubsetVS = `apiVersion: networking.istio.io/v1alpha3
kind: DestinationRule
metadata: {name: dr}
spec:
  host: app
  subsets:
  - name: stable
    labels: {app: app}
  - name: canary
    labels: {app: app}
---
apiVersion: networking.istio.io/v1alpha3
kind: VirtualService
metadata: {name: vsvc}
spec:
  hosts: [app.example]
  http:
  - name: primary
    route:
    - destination: {host: app, subset: stable}
      weight: 100
    - destination: {host: app, subset: canary}
      weight: 0
---
`

const nginxIngress = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: ing}
spec:
  ingressClassName: nginx
  rules:
  - host: app.example
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: stable, port: {number: 80}}}}
---
`

const albIngress = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: ing
  annotations: {alb.ingress.kubernetes.io/scheme: internet-facing}
spec:
  ingressClassName: alb
  rules:
  - http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: stable, port: {name: use-annotation}}}}
---
`

// albRootIngress is upstream's header-routing Ingress (its e2e
// alb-header-route.yaml): rules route to the root Service action1 through
// its action annotation; a second rule with a host and a path of its own
// shows where a header route's path goes.
const albRootIngress = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: ing
  annotations: {kubernetes.io/ingress.class: alb}
spec:
  rules:
  - http:
      paths:
      - {path: /*, pathType: ImplementationSpecific, backend: {service: {name: action1, port: {name: use-annotation}}}}
  - host: app.example
    http:
      paths:
      - {path: /health, pathType: Exact, backend: {service: {name: stable, port: {number: 80}}}}
      - {path: /*, pathType: ImplementationSpecific, backend: {service: {name: action1, port: {name: use-annotation}}}}
---
`

const smiRoot = `apiVersion: v1
kind: Service
metadata: {name: root}
spec: {selector: {app: app}, ports: [{port: 80}]}
---
`

// twoWeights: 20%, pause, 60%, pause.
const twoWeights = "      steps: [{setWeight: 20}, {pause: {}}, {setWeight: 60}, {pause: {}}]"

// routedCanary renders a canary strategy on the stable/canary Services with
// the given trafficRouting block (indented for "trafficRouting:").
func routedCanary(routing, steps string) string {
	return "    canary:\n      canaryService: canary\n      stableService: stable\n      trafficRouting:\n" + routing + "\n" + steps
}

// twoWeightSteps walks twoWeights to the end, then waits out the old
// ReplicaSet's scale-down delay (30 s by default with traffic routing).
var twoWeightSteps = []step{
	{name: "set image", do: setImage("registry.example/app:v2"), until: pausedAt(1)},
	{name: "promote", do: promote, until: pausedAt(3)},
	{name: "promote", do: promote, until: healthyWith("registry.example/app:v2")},
	{name: "delay over", until: oldScaledDown},
}

func trafficScenarios() []scenario {
	return []scenario{{
		name:    "istio-host",
		pre:     canaryServices + istioHostVS,
		yaml:    rollout(4, routedCanary("        istio: {virtualService: {name: vsvc, routes: [primary]}}", twoWeights)),
		initial: healthy,
		steps:   twoWeightSteps,
	}, {
		name: "istio-subset",
		pre:  istioSubsetVS,
		yaml: rollout(4, "    canary:\n      trafficRouting:\n        istio:\n"+
			"          virtualService: {name: vsvc, routes: [primary]}\n"+
			"          destinationRule: {name: dr, canarySubsetName: canary, stableSubsetName: stable}\n"+twoWeights),
		initial: healthy,
		steps:   twoWeightSteps,
	}, {
		// A header route and a mirror route (managed routes), then the
		// header route removed, then promotion.
		name: "istio-header-mirror",
		pre:  canaryServices + istioHostVS,
		yaml: rollout(4, routedCanary("        managedRoutes: [{name: hdr}, {name: mirror}]\n"+
			"        istio: {virtualService: {name: vsvc, routes: [primary]}}",
			"      steps:\n"+
				"      - setWeight: 20\n"+
				"      - setHeaderRoute: {name: hdr, match: [{headerName: x-canary, headerValue: {exact: \"yes\"}}]}\n"+
				"      - setMirrorRoute: {name: mirror, percentage: 50, match: [{method: {exact: GET}}]}\n"+
				"      - pause: {}\n"+
				"      - setHeaderRoute: {name: hdr}\n"+
				"      - pause: {}")),
		initial: healthy,
		steps: []step{
			{name: "set image", do: setImage("registry.example/app:v2"), until: pausedAt(3)},
			{name: "promote", do: promote, until: pausedAt(5)},
			{name: "promote", do: promote, until: healthyWith("registry.example/app:v2")},
			{name: "delay over", until: oldScaledDown},
		},
	}, {
		name:    "nginx",
		pre:     canaryServices + nginxIngress,
		yaml:    rollout(4, routedCanary("        nginx: {stableIngress: ing}", twoWeights)),
		initial: healthy,
		steps:   twoWeightSteps,
	}, {
		name: "smi",
		skip: "the SMI project's CRD (smi-sdk-go v0.5.0) serves only split.smi-spec.io/v1alpha4, which Ramp speaks; " +
			"upstream speaks v1alpha1-v1alpha3 only, so its TrafficSplit writes fail here (docs/conformance.md)",
		pre:     canaryServices + smiRoot,
		yaml:    rollout(4, routedCanary("        smi: {rootService: root}", twoWeights)),
		initial: healthy,
		steps:   twoWeightSteps,
	}, {
		name:    "alb",
		pre:     canaryServices + albIngress,
		yaml:    rollout(4, routedCanary("        alb: {ingress: ing, servicePort: 80}", twoWeights)),
		initial: healthy,
		steps:   twoWeightSteps,
	}, {
		// Upstream's alb-header-route.yaml: a header route's conditions,
		// action and rule path appear at its step, go at the step without
		// a match, and the promotion runs to the end. Its scale-down delay
		// is 20 s, not the file's 5 s: the snapshot "after promote" must see
		// the old ReplicaSet still up, and on a loaded 2-core machine the
		// observation after the condition can take more than 5 s (a run of
		// the full suite saw it scaled down already on one side only).
		name: "alb-header-route",
		pre:  canaryServices + albRootIngress,
		yaml: rollout(4, "    canary:\n      scaleDownDelaySeconds: 20\n"+strings.TrimPrefix(routedCanary(
			"        managedRoutes: [{name: header-route}]\n"+
				"        alb: {ingress: ing, rootService: action1, servicePort: 80}",
			"      steps:\n"+
				"      - setWeight: 20\n"+
				"      - pause: {}\n"+
				"      - setHeaderRoute: {name: header-route, match: [{headerName: Custom-Header, headerValue: {exact: Mozilla*}}]}\n"+
				"      - pause: {}\n"+
				"      - setHeaderRoute: {name: header-route}\n"+
				"      - pause: {}"), "    canary:\n")),
		initial: healthy,
		steps: []step{
			{name: "set image", do: setImage("registry.example/app:v2"), until: pausedAt(1)},
			{name: "promote", do: promote, until: pausedAt(3)},
			{name: "promote", do: promote, until: pausedAt(5)},
			{name: "promote", do: promote, until: healthyWith("registry.example/app:v2")},
			{name: "delay over", until: oldScaledDown},
		},
	}}
}

// TestTrafficScenariosRoute: every scenario of this family routes traffic,
// and names the router it exercises.
func TestTrafficScenariosRoute(t *testing.T) {
	for _, sc := range trafficScenarios() {
		if !strings.Contains(sc.yaml, "trafficRouting:") {
			t.Errorf("%s: no trafficRouting", sc.name)
		}
	}
}
