package plan

import (
	"encoding/json"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// LegacyEphemeralKeysAnnotation is the record earlier Ramp versions wrote
// on a ReplicaSet ("labels=a,b;annotations=c"): still read, removed on the
// next write.
const LegacyEphemeralKeysAnnotation = "rollout.ramp.dev/ephemeral-keys"

// MetadataSync is what brings one ReplicaSet and its pods to the ephemeral
// metadata of the role the ReplicaSet has.
type MetadataSync struct {
	// Labels and Annotations are the value each managed key should have on
	// the pods (nil: absent); MetadataPatch of a pod's own gives its patch.
	Labels, Annotations map[string]*string
	// TemplateLabels and TemplateAnnotations are the merge patch of the
	// ReplicaSet's pod template (empty when it holds).
	TemplateLabels, TemplateAnnotations map[string]*string
	// Record is the EphemeralMetadataAnnotation value ("" removes it).
	Record string
	// Write is set when the ReplicaSet needs a write: its template, its
	// record, or a legacy record to remove.
	Write bool
}

// SyncMetadata says what brings rs (and its pods) to the metadata of its
// role under the planned status st, with newHash the update's ReplicaSet.
// The keys it manages are those any role of the spec sets and those rs
// records, so a key a role no longer sets is removed. ok is false when rs
// has no managed key: nothing to read or write.
func SyncMetadata(ro *rampv1.Rollout, st *rampv1.RolloutStatus, newHash string, rs *appsv1.ReplicaSet) (MetadataSync, bool) {
	managedL, managedA := ManagedMetadataKeys(ro, rs.Annotations)
	if len(managedL)+len(managedA) == 0 {
		return MetadataSync{}, false
	}
	md := EphemeralRole(ro, st, newHash, rs.Labels[rampv1.DefaultRolloutUniqueLabelKey])
	var roleL, roleA map[string]string
	if md != nil {
		roleL, roleA = md.Labels, md.Annotations
	}
	var t map[string]string
	var ta map[string]string
	if tmpl := ro.Spec.Template; tmpl != nil {
		t, ta = tmpl.Labels, tmpl.Annotations
	}
	m := MetadataSync{Labels: WantMetadata(t, roleL, managedL), Annotations: WantMetadata(ta, roleA, managedA), Record: MetadataRecord(md)}
	have := rs.Spec.Template.ObjectMeta
	m.TemplateLabels, m.TemplateAnnotations = MetadataPatch(have.Labels, m.Labels), MetadataPatch(have.Annotations, m.Annotations)
	_, legacy := rs.Annotations[LegacyEphemeralKeysAnnotation]
	m.Write = len(m.TemplateLabels)+len(m.TemplateAnnotations) > 0 || rs.Annotations[rampv1.EphemeralMetadataAnnotation] != m.Record || legacy
	return m, true
}

// ManagedMetadataKeys are the label and annotation keys the controller
// manages on a ReplicaSet with the given annotations: those any role of
// the spec sets and those its record lists, sorted.
func ManagedMetadataKeys(ro *rampv1.Rollout, annotations map[string]string) (labels, annots []string) {
	specL, specA := EphemeralKeys(ro)
	recL, recA := RecordedKeys(annotations)
	return union(specL, recL), union(specA, recA)
}

// MetadataRecord is the EphemeralMetadataAnnotation value for role md, as
// upstream writes it ("" when md sets no key).
func MetadataRecord(md *rampv1.PodTemplateMetadata) string {
	if l, a := MetadataKeys(md); len(l)+len(a) == 0 {
		return ""
	}
	b, _ := json.Marshal(rampv1.PodTemplateMetadata{Labels: md.Labels, Annotations: md.Annotations}) // string maps always encode
	return string(b)
}

// RecordedKeys reads the keys a ReplicaSet's annotations record:
// EphemeralMetadataAnnotation's and LegacyEphemeralKeysAnnotation's.
func RecordedKeys(annotations map[string]string) (labels, annots []string) {
	var md rampv1.PodTemplateMetadata
	if v := annotations[rampv1.EphemeralMetadataAnnotation]; v != "" && json.Unmarshal([]byte(v), &md) == nil {
		labels, annots = MetadataKeys(&md)
	}
	for part := range strings.SplitSeq(annotations[LegacyEphemeralKeysAnnotation], ";") {
		name, list, _ := strings.Cut(part, "=")
		var keys []string
		if list != "" {
			keys = strings.Split(list, ",")
		}
		switch name {
		case "labels":
			labels = union(labels, keys)
		case "annotations":
			annots = union(annots, keys)
		}
	}
	return labels, annots
}

// union merges key lists, sorted, without repeats.
func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}
