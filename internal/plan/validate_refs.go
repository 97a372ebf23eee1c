package plan

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// ServiceRef is a Service a Rollout names, and the field that names it.
type ServiceRef struct{ Field, Name string }

// ServiceRefs lists the Services a Rollout's strategy names, in spec order:
// canary and stable (and pingPong's ping and pong), or active and preview.
func ServiceRefs(ro *rampv1.Rollout) []ServiceRef {
	var refs []ServiceRef
	add := func(field, name string) {
		if name != "" {
			refs = append(refs, ServiceRef{field, name})
		}
	}
	if c := ro.Spec.Strategy.Canary; c != nil {
		add("spec.strategy.canary.canaryService", c.CanaryService)
		add("spec.strategy.canary.stableService", c.StableService)
		if p := c.PingPong; p != nil {
			add("spec.strategy.canary.pingPong.pingService", p.PingService)
			add("spec.strategy.canary.pingPong.pongService", p.PongService)
		}
	}
	if b := ro.Spec.Strategy.BlueGreen; b != nil {
		add("spec.strategy.blueGreen.activeService", b.ActiveService)
		add("spec.strategy.blueGreen.previewService", b.PreviewService)
	}
	return refs
}

// ServiceNames are the names of ServiceRefs, in the same order: the
// Services the reconciler reads (Input.ServiceHash) and watches.
func ServiceNames(ro *rampv1.Rollout) []string {
	refs := ServiceRefs(ro)
	names := make([]string, len(refs))
	for i, ref := range refs {
		names[i] = ref.Name
	}
	return names
}

// ServiceProblem reports a Service the Rollout cannot use as ref names it,
// as upstream does: its selector asks for a label (other than the
// pod-template hash) the Rollout's pods do not carry, so it would select
// none of them; or another Rollout manages it. Deterministic: the first
// offending selector key in sorted order.
func ServiceProblem(ro *rampv1.Rollout, ref ServiceRef, svc *corev1.Service) string {
	var labels map[string]string
	if ro.Spec.Template != nil {
		labels = ro.Spec.Template.Labels
	}
	keys := make([]string, 0, len(svc.Spec.Selector))
	for k := range svc.Spec.Selector {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := svc.Spec.Selector[k]
		if got, ok := labels[k]; k != rampv1.DefaultRolloutUniqueLabelKey && (!ok || got != v) {
			return fmt.Sprintf("%s: Service %q selects %s=%s, which the Rollout's pods (spec.template.metadata.labels) do not carry",
				ref.Field, ref.Name, k, v)
		}
	}
	if owner, ok := svc.Annotations[rampv1.ManagedByRolloutsAnnotation]; ok && owner != ro.Name {
		return fmt.Sprintf("%s: Service %q is managed by Rollout %q (annotation %s)", ref.Field, ref.Name, owner,
			rampv1.ManagedByRolloutsAnnotation)
	}
	return ""
}
