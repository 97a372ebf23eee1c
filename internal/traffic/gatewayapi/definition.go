package gatewayapi

import (
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// Name is the router's trafficRouting key: the Argo Rollouts Gateway API
// plugin's, under trafficRouting.plugins.
const Name = "argoproj-labs/gatewayAPI"

// The router edits the user's HTTPRoutes in place (it creates none).
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=httproutes,verbs=get;list;watch;update

// Definition describes the Gateway API router to the registry.
var Definition = traffic.Definition{
	Name:  Name,
	Caps:  traffic.Capabilities{HeaderRoutes: true, MirrorRoutes: true},
	Kinds: []traffic.Kind{{GroupKind: httpRouteGVK.GroupKind(), Resource: "httproutes"}},
	CRDs: &traffic.CRDs{Module: "sigs.k8s.io/gateway-api@v1.4.1", Files: []string{ // the standard channel
		"config/crd/standard/gateway.networking.k8s.io_httproutes.yaml",
		"config/crd/standard/gateway.networking.k8s.io_gateways.yaml",
		"config/crd/standard/gateway.networking.k8s.io_gatewayclasses.yaml",
	}},
}

func init() { traffic.Register(Definition, New) }
