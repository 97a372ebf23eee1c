package experiment

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// +kubebuilder:rbac:groups="",resources=services,verbs=create

// serviceName is the Service of a template: spec.templates[].service.name,
// else the template's ReplicaSet's name.
func serviceName(ex *rampv1.Experiment, t rampv1.TemplateSpec) string {
	if t.Service != nil && t.Service.Name != "" {
		return t.Service.Name
	}
	return ex.Name + "-" + t.Name
}

// observeServices records the existing Services of the templates that ask
// for one (owned by the Experiment), by template name.
func (r *Reconciler) observeServices(ctx context.Context, ex *rampv1.Experiment, w *world) error {
	w.services = map[string]*corev1.Service{}
	for i, t := range ex.Spec.Templates {
		if t.Service == nil {
			continue
		}
		var svc corev1.Service
		err := r.Client.Get(ctx, client.ObjectKey{Namespace: ex.Namespace, Name: serviceName(ex, t)}, &svc)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return err
		case metav1.IsControlledBy(&svc, ex):
			w.services[t.Name] = &svc
		default:
			w.invalid = fmt.Sprintf("spec.templates[%d].service: Service %q exists and is not this Experiment's", i, svc.Name)
		}
	}
	return nil
}

// applyServices creates the wanted Services that are missing (selecting the
// template's pods by its selector and pod-template hash, with the
// containers' ports; headless when they declare none). The controller never
// deletes a Service: the Experiment's go with it (owner reference).
func (r *Reconciler) applyServices(ctx context.Context, ex *rampv1.Experiment, w *world, want map[string]bool) error {
	for _, t := range ex.Spec.Templates {
		if _, have := w.services[t.Name]; have || !want[t.Name] {
			continue
		}
		if err := r.Client.Create(ctx, newService(ex, t, w.hashes[t.Name])); client.IgnoreAlreadyExists(err) != nil {
			return fmt.Errorf("create Service for template %q: %w", t.Name, err)
		}
	}
	return nil
}

func newService(ex *rampv1.Experiment, t rampv1.TemplateSpec, hash string) *corev1.Service {
	sel := map[string]string{rampv1.DefaultRolloutUniqueLabelKey: hash}
	if t.Selector != nil { // Validate rejects a template without one; never crash on it
		maps.Copy(sel, t.Selector.MatchLabels)
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: serviceName(ex, t), Namespace: ex.Namespace,
			Labels:          map[string]string{NameLabel: ex.Name, TemplateLabel: t.Name},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ex, rampv1.GroupVersion.WithKind("Experiment"))}},
		Spec: corev1.ServiceSpec{Selector: sel},
	}
	for _, c := range t.Template.Spec.Containers {
		for _, p := range c.Ports {
			svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: p.Name, Protocol: p.Protocol, Port: p.ContainerPort,
				TargetPort: intstr.FromInt32(p.ContainerPort)})
		}
	}
	if len(svc.Spec.Ports) == 0 {
		svc.Spec.ClusterIP = corev1.ClusterIPNone
	}
	return svc
}
