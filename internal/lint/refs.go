package lint

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/ramp-rollouts/ramp/internal/plan"
)

// serviceDoc is a Service among the linted objects.
type serviceDoc struct {
	obj *Object
	svc *corev1.Service
}

// ingressDoc is an Ingress (networking.k8s.io/v1 or extensions/v1beta1)
// among the linted objects, reduced to the Services its rules route to.
type ingressDoc struct {
	obj       *Object
	namespace string
	backends  map[string]bool
}

func (ix *index) addService(o *Object, svc *corev1.Service) {
	ix.services = append(ix.services, serviceDoc{obj: o, svc: svc})
}

func (ix *index) addIngress(o *Object, ing *networkingv1.Ingress) {
	d := ingressDoc{obj: o, namespace: ing.Namespace, backends: map[string]bool{}}
	for _, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			if s := p.Backend.Service; s != nil {
				d.backends[s.Name] = true
			}
		}
	}
	ix.ingresses = append(ix.ingresses, d)
}

func (ix *index) addLegacyIngress(o *Object, ing *extensionsv1beta1.Ingress) {
	d := ingressDoc{obj: o, namespace: ing.Namespace, backends: map[string]bool{}}
	for _, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			d.backends[p.Backend.ServiceName] = true
		}
	}
	ix.ingresses = append(ix.ingresses, d)
}

// sameNamespace reports whether two objects may be in one namespace (an
// empty namespace is the one kubectl applies to).
func sameNamespace(a, b string) bool { return a == "" || b == "" || a == b }

// serviceRefs reports a Service among the linted objects that the Rollout
// names but cannot use (plan.ServiceProblem: the controller's words).
func (ix *index) serviceRefs(r rolloutDoc) {
	for _, ref := range plan.ServiceRefs(r.ro) {
		for _, s := range ix.services {
			if s.svc.Name != ref.Name || !sameNamespace(s.svc.Namespace, r.ro.Namespace) {
				continue
			}
			if msg := plan.ServiceProblem(r.ro, ref, s.svc); msg != "" {
				field, rest := splitField(msg)
				ix.add(r.obj, Error, field, fmt.Sprintf("%s (%s:%d)", rest, s.obj.File, s.obj.Line))
			}
		}
	}
}

// ingressRefs reports an nginx or ALB Ingress among the linted objects
// with no rule routing to the Service the router splits (nginx: the stable
// Service; ALB: rootService, else the stable Service), which upstream
// reports as InvalidSpec: there is no backend to split.
func (ix *index) ingressRefs(r rolloutDoc) {
	c := r.ro.Spec.Strategy.Canary
	if c == nil || c.TrafficRouting == nil {
		return
	}
	type ref struct{ field, name, service string }
	var refs []ref
	if n := c.TrafficRouting.Nginx; n != nil {
		if n.StableIngress != "" {
			refs = append(refs, ref{"spec.strategy.canary.trafficRouting.nginx.stableIngress", n.StableIngress, c.StableService})
		}
		for i, name := range n.StableIngresses {
			refs = append(refs, ref{indexed("spec.strategy.canary.trafficRouting.nginx.stableIngresses", i), name, c.StableService})
		}
	}
	if a := c.TrafficRouting.ALB; a != nil {
		svc := c.StableService
		if a.RootService != "" {
			svc = a.RootService
		}
		if a.Ingress != "" {
			refs = append(refs, ref{"spec.strategy.canary.trafficRouting.alb.ingress", a.Ingress, svc})
		}
		for i, name := range a.Ingresses {
			refs = append(refs, ref{indexed("spec.strategy.canary.trafficRouting.alb.ingresses", i), name, svc})
		}
	}
	for _, f := range refs {
		for _, ing := range ix.ingresses {
			if ing.obj.Name != f.name || !sameNamespace(ing.namespace, r.ro.Namespace) || f.service == "" || ing.backends[f.service] {
				continue
			}
			ix.add(r.obj, Error, f.field, fmt.Sprintf("Ingress %q (%s:%d) has no rule routing to Service %q, the backend the router splits",
				f.name, ing.obj.File, ing.obj.Line, f.service))
		}
	}
}
