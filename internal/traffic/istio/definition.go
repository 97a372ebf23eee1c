package istio

import (
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// Name is the router's trafficRouting key.
const Name = "istio"

// The router edits the user's VirtualServices and DestinationRules in place
// (it creates none).
// +kubebuilder:rbac:groups=networking.istio.io,resources=virtualservices;destinationrules,verbs=get;list;watch;update

// Definition describes the Istio router to the registry.
var Definition = traffic.Definition{
	Name: Name,
	Caps: traffic.Capabilities{HeaderRoutes: true, MirrorRoutes: true},
	Kinds: []traffic.Kind{
		{GroupKind: VirtualServiceGVK.GroupKind(), Resource: "virtualservices"},
		{GroupKind: DestinationRuleGVK.GroupKind(), Resource: "destinationrules"},
	},
	CRDs: &traffic.CRDs{Module: "istio.io/api@v1.31.1", Files: []string{"kubernetes/customresourcedefinitions.gen.yaml"}},
}

func init() { traffic.Register(Definition, New) }
