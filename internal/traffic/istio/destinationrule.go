package istio

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// subsetLabels returns the change that points the DestinationRule's subsets
// at want's pod-template hashes: the canary subset at CanaryHash, the stable
// and additional subsets at StableHash. An empty hash leaves its subsets as
// they are; a subset missing from spec.subsets is an error naming it. As
// upstream, the DestinationRule is annotated managed-by-rollouts with the
// name of the Rollout (owner) that points it. No other field is touched.
func subsetLabels(owner string, dr rampv1.IstioDestinationRule, want traffic.Route) func(*unstructured.Unstructured) error {
	type point struct{ subset, hash string }
	points := []point{{dr.CanarySubsetName, want.CanaryHash}, {dr.StableSubsetName, want.StableHash}}
	for _, name := range dr.AdditionalSubsetNames {
		points = append(points, point{name, want.StableHash})
	}
	return func(u *unstructured.Unstructured) error {
		annotations := u.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[rampv1.ManagedByRolloutsAnnotation] = owner
		u.SetAnnotations(annotations)
		spec, _ := u.Object["spec"].(map[string]any)
		subsets := list(spec, "subsets")
		for _, p := range points {
			s := subset(subsets, p.subset)
			if s == nil {
				return fmt.Errorf("subset %q not found in spec.subsets", p.subset)
			}
			if p.hash == "" {
				continue
			}
			labels, _ := s["labels"].(map[string]any)
			if labels == nil {
				labels = map[string]any{}
				s["labels"] = labels
			}
			labels[rampv1.DefaultRolloutUniqueLabelKey] = p.hash
		}
		return nil
	}
}

// subset is the entry of subsets named name, nil when there is none.
func subset(subsets []any, name string) map[string]any {
	for _, v := range subsets {
		if s, ok := v.(map[string]any); ok && s["name"] == name {
			return s
		}
	}
	return nil
}
