package alb

import (
	"fmt"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
	"github.com/ramp-rollouts/ramp/internal/traffic/objects"
)

// Name is the router's trafficRouting key.
const Name = "alb"

// The router edits annotations of the user's Ingresses in place (it creates
// none).
// +kubebuilder:rbac:groups=networking.k8s.io,resources=ingresses,verbs=get;list;watch;update

// Definition describes the ALB router to the registry. Ingress is built
// into Kubernetes: no CRDs.
var Definition = traffic.Definition{
	Name:  Name,
	Caps:  traffic.Capabilities{HeaderRoutes: true, HeaderMatch: headerMatch},
	Kinds: []traffic.Kind{{GroupKind: objects.IngressGVK.GroupKind(), Resource: "ingresses"}},
}

func init() { traffic.Register(Definition, New) }

// headerMatch is what the planner refuses of a setHeaderRoute: ALB's
// listener conditions compare a header's value as written (with the
// wildcards * and ?), so each match needs a header name and an exact value
// (exactValue, when the route is synced).
func headerMatch(ms []rampv1.HeaderRoutingMatch) string {
	for i, m := range ms {
		v := m.HeaderValue
		switch {
		case m.HeaderName == "":
			return fmt.Sprintf(".match[%d].headerName: required by the alb traffic router", i)
		case v == nil || v.Exact == "" || v.Prefix != "" || v.Regex != "":
			return fmt.Sprintf(".match[%d].headerValue: the alb traffic router matches exact values only (ALB takes * and ? as wildcards in them)", i)
		}
	}
	return ""
}
