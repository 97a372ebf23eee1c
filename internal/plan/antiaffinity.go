package plan

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// hostnameTopology is the node label an injected anti-affinity spreads on.
const hostnameTopology = "kubernetes.io/hostname"

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
// ReplicaSet with hash previous.
func antiAffinityTerm(previous string) corev1.PodAffinityTerm {
	return corev1.PodAffinityTerm{
		TopologyKey: hostnameTopology,
		LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: rampv1.DefaultRolloutUniqueLabelKey, Operator: metav1.LabelSelectorOpIn, Values: []string{previous},
		}}},
	}
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
	pa, term := spec.Affinity.PodAntiAffinity, antiAffinityTerm(previous)
	if p := a.PreferredDuringSchedulingIgnoredDuringExecution; p != nil {
		pa.PreferredDuringSchedulingIgnoredDuringExecution = append(pa.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.WeightedPodAffinityTerm{Weight: p.Weight, PodAffinityTerm: term})
	} else {
		pa.RequiredDuringSchedulingIgnoredDuringExecution = append(pa.RequiredDuringSchedulingIgnoredDuringExecution, term)
	}
	return true
}

// RemoveAntiAffinity takes out of spec the term InjectAntiAffinity added
// for previous (to compare a ReplicaSet's template with the Rollout's),
// and the Affinity structs it had to create.
func RemoveAntiAffinity(previous string, spec *corev1.PodSpec) {
	if spec.Affinity == nil || spec.Affinity.PodAntiAffinity == nil {
		return
	}
	pa, term := spec.Affinity.PodAntiAffinity, antiAffinityTerm(previous)
	pa.PreferredDuringSchedulingIgnoredDuringExecution = slices.DeleteFunc(pa.PreferredDuringSchedulingIgnoredDuringExecution,
		func(w corev1.WeightedPodAffinityTerm) bool {
			return apiequality.Semantic.DeepEqual(w.PodAffinityTerm, term)
		})
	pa.RequiredDuringSchedulingIgnoredDuringExecution = slices.DeleteFunc(pa.RequiredDuringSchedulingIgnoredDuringExecution,
		func(t corev1.PodAffinityTerm) bool { return apiequality.Semantic.DeepEqual(t, term) })
	if len(pa.PreferredDuringSchedulingIgnoredDuringExecution) == 0 && len(pa.RequiredDuringSchedulingIgnoredDuringExecution) == 0 {
		spec.Affinity.PodAntiAffinity = nil
	}
	if *spec.Affinity == (corev1.Affinity{}) {
		spec.Affinity = nil
	}
}
