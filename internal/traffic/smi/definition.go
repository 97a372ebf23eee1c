package smi

import (
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// Name is the router's trafficRouting key.
const Name = "smi"

// The router creates and updates the TrafficSplits it owns; the garbage
// collector deletes them with their Rollout.
// +kubebuilder:rbac:groups=split.smi-spec.io,resources=trafficsplits,verbs=get;list;watch;create;update

// Definition describes the SMI router to the registry. SMI has no header or
// mirror routes. Its project publishes the TrafficSplit CRD only as
// apiextensions.k8s.io/v1beta1 (hack/routers converts it to v1).
var Definition = traffic.Definition{
	Name:  Name,
	Kinds: []traffic.Kind{{GroupKind: splitGK, Resource: "trafficsplits"}},
	CRDs:  &traffic.CRDs{Module: "github.com/servicemeshinterface/smi-sdk-go@v0.5.0", Files: []string{"crds/split.yaml"}},
}

func init() { traffic.Register(Definition, New) }
