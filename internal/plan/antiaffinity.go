package plan

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// hostnameTopology is the node label an injected anti-affinity spreads on.
const hostnameTopology = corev1.LabelHostname

// antiAffinityOf is the strategy's antiAffinity (nil: none).
func antiAffinityOf(ro *rampv1.Rollout) *rampv1.AntiAffinity {
	if c := ro.Spec.Strategy.Canary; c != nil {
		return c.AntiAffinity
	}
	if b := ro.Spec.Strategy.BlueGreen; b != nil {
		return b.AntiAffinity
	}
	return nil
}

// antiAffinityTerm keeps a pod off the nodes that run pods of the
// ReplicaSet with hash previous in namespace ns (upstream's term exactly).
func antiAffinityTerm(ns, previous string) corev1.PodAffinityTerm {
	return corev1.PodAffinityTerm{
		TopologyKey: hostnameTopology,
		Namespaces:  []string{ns},
		LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: rampv1.DefaultRolloutUniqueLabelKey, Operator: metav1.LabelSelectorOpIn, Values: []string{previous},
		}}},
	}
}

// injectedTerm says whether t is a term InjectAntiAffinity adds (for any
// previous hash): the ReplicaSet's template carries which one it is.
func injectedTerm(ns string, t corev1.PodAffinityTerm) bool {
	sel := t.LabelSelector
	if sel == nil || len(sel.MatchExpressions) != 1 || len(sel.MatchExpressions[0].Values) != 1 {
		return false
	}
	return apiequality.Semantic.DeepEqual(t, antiAffinityTerm(ns, sel.MatchExpressions[0].Values[0]))
}

// InjectAntiAffinity adds spec.strategy.*.antiAffinity to the pod spec of a
// new ReplicaSet: its pods avoid the nodes of the previous version (hash
// previous), so the nodes an update adds are the ones the old version
// leaves empty for the cluster autoscaler. The template's own affinity
// rules are kept. It reports whether it added a term.
func InjectAntiAffinity(ro *rampv1.Rollout, previous string, spec *corev1.PodSpec) bool {
	a := antiAffinityOf(ro)
	if a == nil || previous == "" || (a.PreferredDuringSchedulingIgnoredDuringExecution == nil && a.RequiredDuringSchedulingIgnoredDuringExecution == nil) {
		return false
	}
	if spec.Affinity == nil {
		spec.Affinity = &corev1.Affinity{}
	}
	if spec.Affinity.PodAntiAffinity == nil {
		spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{}
	}
	pa, term := spec.Affinity.PodAntiAffinity, antiAffinityTerm(ro.Namespace, previous)
	if p := a.PreferredDuringSchedulingIgnoredDuringExecution; p != nil {
		pa.PreferredDuringSchedulingIgnoredDuringExecution = append(pa.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.WeightedPodAffinityTerm{Weight: p.Weight, PodAffinityTerm: term})
	} else {
		pa.RequiredDuringSchedulingIgnoredDuringExecution = append(pa.RequiredDuringSchedulingIgnoredDuringExecution, term)
	}
	return true
}

// RemoveAntiAffinity takes out of spec the terms InjectAntiAffinity added
// in namespace ns (to compare a ReplicaSet's template with the Rollout's),
// and the Affinity structs it had to create.
func RemoveAntiAffinity(ns string, spec *corev1.PodSpec) {
	if spec.Affinity == nil || spec.Affinity.PodAntiAffinity == nil {
		return
	}
	pa := spec.Affinity.PodAntiAffinity
	pa.PreferredDuringSchedulingIgnoredDuringExecution = slices.DeleteFunc(pa.PreferredDuringSchedulingIgnoredDuringExecution,
		func(w corev1.WeightedPodAffinityTerm) bool { return injectedTerm(ns, w.PodAffinityTerm) })
	pa.RequiredDuringSchedulingIgnoredDuringExecution = slices.DeleteFunc(pa.RequiredDuringSchedulingIgnoredDuringExecution,
		func(t corev1.PodAffinityTerm) bool { return injectedTerm(ns, t) })
	if len(pa.PreferredDuringSchedulingIgnoredDuringExecution) == 0 && len(pa.RequiredDuringSchedulingIgnoredDuringExecution) == 0 {
		spec.Affinity.PodAntiAffinity = nil
	}
	if *spec.Affinity == (corev1.Affinity{}) {
		spec.Affinity = nil
	}
}
