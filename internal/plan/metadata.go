package plan

import (
	"fmt"
	"maps"
	"slices"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Ephemeral metadata (canaryMetadata/stableMetadata, previewMetadata/
// activeMetadata) labels and annotates a ReplicaSet's pods for as long as
// the ReplicaSet has that role: the new ReplicaSet's pods carry the canary
// (preview) metadata until it becomes stable (active), then the stable
// (active) metadata, updated in place; a ReplicaSet with no role left
// loses it. The pod-template hash never includes it.

// EphemeralRole is the metadata the pods of the ReplicaSet with hash carry
// under status st (nil: none), with newHash the update's ReplicaSet.
func EphemeralRole(ro *rampv1.Rollout, st *rampv1.RolloutStatus, newHash, hash string) *rampv1.PodTemplateMetadata {
	if c := ro.Spec.Strategy.Canary; c != nil {
		switch hash {
		case st.StableRS:
			return c.StableMetadata
		case newHash:
			return c.CanaryMetadata
		}
		return nil
	}
	b := ro.Spec.Strategy.BlueGreen
	if b == nil {
		return nil
	}
	active := st.StableRS
	if st.BlueGreen.ActiveSelector != "" {
		active = st.BlueGreen.ActiveSelector
	}
	switch hash {
	case active:
		return b.ActiveMetadata
	case newHash:
		return b.PreviewMetadata
	}
	return nil
}

// EphemeralKeys are the label and annotation keys any role of the
// Rollout's strategy sets, sorted.
func EphemeralKeys(ro *rampv1.Rollout) (labels, annotations []string) {
	var roles []*rampv1.PodTemplateMetadata
	if c := ro.Spec.Strategy.Canary; c != nil {
		roles = append(roles, c.CanaryMetadata, c.StableMetadata)
	}
	if b := ro.Spec.Strategy.BlueGreen; b != nil {
		roles = append(roles, b.PreviewMetadata, b.ActiveMetadata)
	}
	for _, md := range roles {
		l, a := MetadataKeys(md)
		labels, annotations = append(labels, l...), append(annotations, a...)
	}
	slices.Sort(labels)
	slices.Sort(annotations)
	return slices.Compact(labels), slices.Compact(annotations)
}

// MetadataKeys are the label and annotation keys md sets, sorted (none for
// nil).
func MetadataKeys(md *rampv1.PodTemplateMetadata) (labels, annotations []string) {
	if md == nil {
		return nil, nil
	}
	return slices.Sorted(maps.Keys(md.Labels)), slices.Sorted(maps.Keys(md.Annotations))
}

// WantMetadata is the value each managed key should have: the role's, else
// the pod template's own, else nil (absent).
func WantMetadata(template, role map[string]string, managed []string) map[string]*string {
	want := make(map[string]*string, len(managed))
	for _, k := range managed {
		if v, ok := role[k]; ok {
			want[k] = &v
		} else if v, ok := template[k]; ok {
			want[k] = &v
		} else {
			want[k] = nil
		}
	}
	return want
}

// MetadataPatch is the merge patch that brings current to want: the keys
// whose value differs, nil for a key to remove; empty when current holds.
func MetadataPatch(current map[string]string, want map[string]*string) map[string]*string {
	patch := map[string]*string{}
	for k, v := range want {
		cur, ok := current[k]
		switch {
		case v == nil && ok:
			patch[k] = nil
		case v != nil && (!ok || cur != *v):
			patch[k] = v
		}
	}
	return patch
}

// metadataProblems reports ephemeral labels that would take pods out of the
// Rollout's selector or touch the pod-template hash label.
func metadataProblems(ro *rampv1.Rollout) []string {
	var out []string
	check := func(path string, md *rampv1.PodTemplateMetadata) {
		if md == nil {
			return
		}
		for _, k := range slices.Sorted(maps.Keys(md.Labels)) {
			sel := map[string]string{}
			if ro.Spec.Selector != nil {
				sel = ro.Spec.Selector.MatchLabels
			}
			switch v, ok := sel[k]; {
			case k == rampv1.DefaultRolloutUniqueLabelKey:
				out = append(out, fmt.Sprintf("%s.labels.%s: the pod-template hash label is the controller's", path, k))
			case ok && v != md.Labels[k]:
				out = append(out, fmt.Sprintf("%s.labels.%s: %q would take the pods out of spec.selector (%s=%s)", path, k, md.Labels[k], k, v))
			}
		}
	}
	if c := ro.Spec.Strategy.Canary; c != nil {
		check("spec.strategy.canary.canaryMetadata", c.CanaryMetadata)
		check("spec.strategy.canary.stableMetadata", c.StableMetadata)
	}
	if b := ro.Spec.Strategy.BlueGreen; b != nil {
		check("spec.strategy.blueGreen.previewMetadata", b.PreviewMetadata)
		check("spec.strategy.blueGreen.activeMetadata", b.ActiveMetadata)
	}
	return out
}
