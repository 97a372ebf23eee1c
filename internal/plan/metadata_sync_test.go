package plan

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestRecordedKeys: the keys a ReplicaSet records, in upstream's
// ephemeral-metadata annotation or the legacy one earlier Ramp versions
// wrote, and the record MetadataRecord writes (upstream's JSON).
func TestRecordedKeys(t *testing.T) {
	for _, legacy := range []string{"labels=role,track;annotations=phase", "labels=role;annotations=", "labels=;annotations=a,b"} {
		l, a := RecordedKeys(map[string]string{LegacyEphemeralKeysAnnotation: legacy})
		if got := "labels=" + strings.Join(l, ",") + ";annotations=" + strings.Join(a, ","); got != legacy {
			t.Errorf("%q read back as %q", legacy, got)
		}
	}
	upstream := `{"labels":{"role":"canary"},"annotations":{"note":"canary"}}`
	if l, a := RecordedKeys(map[string]string{rampv1.EphemeralMetadataAnnotation: upstream}); len(l) != 1 || l[0] != "role" || len(a) != 1 || a[0] != "note" {
		t.Errorf("upstream's record read as %q, %q", l, a)
	}
	l, a := RecordedKeys(map[string]string{rampv1.EphemeralMetadataAnnotation: upstream, LegacyEphemeralKeysAnnotation: "labels=old,role;annotations="})
	if strings.Join(l, ",") != "old,role" || strings.Join(a, ",") != "note" {
		t.Errorf("both records read as %q, %q", l, a)
	}
	if got := MetadataRecord(&rampv1.PodTemplateMetadata{Labels: map[string]string{"role": "canary"}, Annotations: map[string]string{"note": "canary"}}); got != upstream {
		t.Errorf("MetadataRecord = %s, want upstream's %s", got, upstream)
	}
	if MetadataRecord(nil) != "" || MetadataRecord(&rampv1.PodTemplateMetadata{}) != "" {
		t.Error("a role setting no key has a record")
	}
	if l, a := RecordedKeys(nil); len(l)+len(a) != 0 {
		t.Errorf("no annotation: %q, %q", l, a)
	}
}

// TestSyncMetadata: which labels and annotations each ReplicaSet's pods
// and template get for the role it has under the planned status, and
// whether the ReplicaSet needs a write.
func TestSyncMetadata(t *testing.T) {
	role := func(v string) *rampv1.PodTemplateMetadata {
		return &rampv1.PodTemplateMetadata{Labels: map[string]string{"role": v}}
	}
	canary := &rampv1.Rollout{}
	canary.Spec.Template = &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", "role": "base"}}}
	canary.Spec.Strategy.Canary = &rampv1.CanaryStrategy{CanaryMetadata: role("canary"), StableMetadata: role("stable")}
	plain := canary.DeepCopy()
	plain.Spec.Strategy.Canary = &rampv1.CanaryStrategy{}
	bg := canary.DeepCopy()
	bg.Spec.Strategy = rampv1.RolloutStrategy{BlueGreen: &rampv1.BlueGreenStrategy{PreviewMetadata: role("preview"), ActiveMetadata: role("active")}}
	st := &rampv1.RolloutStatus{StableRS: "v1", CurrentPodHash: "v2"}
	rs := func(hash, tmplRole string, annotations map[string]string) *appsv1.ReplicaSet {
		r := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{rampv1.DefaultRolloutUniqueLabelKey: hash}, Annotations: annotations}}
		r.Spec.Template.Labels = map[string]string{"app": "web", "role": tmplRole}
		return r
	}
	rec := func(v string) map[string]string {
		return map[string]string{rampv1.EphemeralMetadataAnnotation: MetadataRecord(role(v))}
	}
	for _, tc := range []struct {
		name      string
		ro        *rampv1.Rollout
		rs        *appsv1.ReplicaSet
		ok, write bool
		podRole   string // "" : the key is removed
		patch     string // the template's role patch, "-" for none
		record    string // role of the record, "" for none
	}{
		{"canary, in place", canary, rs("v2", "canary", rec("canary")), true, false, "canary", "-", "canary"},
		{"canary becomes stable", canary, rs("v1", "canary", rec("canary")), true, true, "stable", "stable", "stable"},
		{"no role left: the template's own", canary, rs("v0", "stable", rec("stable")), true, true, "base", "base", ""},
		{"legacy record only: rewritten", canary, rs("v2", "canary", map[string]string{LegacyEphemeralKeysAnnotation: "labels=role;annotations="}), true, true, "canary", "-", "canary"},
		{"roles dropped from the spec: the recorded key reverts", plain, rs("v2", "canary", rec("canary")), true, true, "base", "base", ""},
		{"no metadata anywhere", plain, rs("v2", "base", nil), false, false, "", "-", ""},
		{"blue-green preview", bg, rs("v2", "base", nil), true, true, "preview", "preview", "preview"},
		{"blue-green active", bg, rs("v1", "preview", rec("preview")), true, true, "active", "active", "active"},
	} {
		m, ok := SyncMetadata(tc.ro, st, "v2", tc.rs)
		if ok != tc.ok || m.Write != tc.write {
			t.Errorf("%s: ok %v, write %v, want %v, %v", tc.name, ok, m.Write, tc.ok, tc.write)
			continue
		}
		if !ok {
			continue
		}
		if v := m.Labels["role"]; v == nil || *v != tc.podRole {
			t.Errorf("%s: pods want role %v, want %q", tc.name, deref(v), tc.podRole)
		}
		if v, patched := m.TemplateLabels["role"]; (tc.patch == "-") == patched || (patched && *v != tc.patch) {
			t.Errorf("%s: template patch %v, want %q", tc.name, m.TemplateLabels, tc.patch)
		}
		want := ""
		if tc.record != "" {
			want = MetadataRecord(role(tc.record))
		}
		if m.Record != want {
			t.Errorf("%s: record %q, want %q", tc.name, m.Record, want)
		}
		if len(m.Labels) != 1 {
			t.Errorf("%s: managed labels %v, want role only", tc.name, m.Labels)
		}
	}
}

func deref(v *string) string {
	if v == nil {
		return "<absent>"
	}
	return *v
}
