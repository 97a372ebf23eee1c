package nginx

import (
	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
	"github.com/ramp-rollouts/ramp/internal/traffic/objects"
)

// Name is the router's trafficRouting key.
const Name = "nginx"

// The router reads the stable Ingresses and creates, updates and (Cleanup)
// deletes its canary Ingresses.
// +kubebuilder:rbac:groups=networking.k8s.io,resources=ingresses,verbs=get;list;watch;create;update;delete

// Definition describes the NGINX router to the registry. Ingress is built
// into Kubernetes: no CRDs.
var Definition = traffic.Definition{
	Name:  Name,
	Caps:  traffic.Capabilities{HeaderRoutes: true, HeaderMatch: headerMatch},
	Kinds: []traffic.Kind{{GroupKind: objects.IngressGVK.GroupKind(), Resource: "ingresses"}},
}

func init() { traffic.Register(Definition, New) }

// headerMatch is what the planner refuses of a setHeaderRoute: NGINX's
// canary-by-header annotations name one header (CheckHeaderRoute checks
// the rest when the route is synced).
func headerMatch(ms []rampv1.HeaderRoutingMatch) string {
	if len(ms) > 1 {
		return ".match: the nginx traffic router can route on one header only (canary-by-header)"
	}
	return ""
}
