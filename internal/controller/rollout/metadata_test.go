package rollout

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func TestEphemeralKeysRoundTrip(t *testing.T) {
	for _, k := range []ephemeralKeys{
		{labels: []string{"role", "track"}, annotations: []string{"phase"}},
		{labels: []string{"role"}},
		{annotations: []string{"a", "b"}},
	} {
		rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{LegacyEphemeralKeysAnnotation: k.String()}}}
		if got := recordedKeys(rs); got.String() != k.String() || len(got.labels) != len(k.labels) || len(got.annotations) != len(k.annotations) {
			t.Errorf("%q read back as %+v", k.String(), got)
		}
	}
	upstream := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
		rampv1.EphemeralMetadataAnnotation: `{"labels":{"role":"canary"},"annotations":{"note":"canary"}}`}}}
	if got := recordedKeys(upstream).String(); got != "labels=role;annotations=note" {
		t.Errorf("upstream's record read as %q", got)
	}
	if got := record(&rampv1.PodTemplateMetadata{Labels: map[string]string{"role": "canary"}, Annotations: map[string]string{"note": "canary"}}); got != upstream.Annotations[rampv1.EphemeralMetadataAnnotation] {
		t.Errorf("record %s, want upstream's %s", got, upstream.Annotations[rampv1.EphemeralMetadataAnnotation])
	}
	if got := recordedKeys(&appsv1.ReplicaSet{}); !got.empty() {
		t.Errorf("no annotation: %+v", got)
	}
}

// TestWithoutEphemeral: a ReplicaSet created with canary metadata, then
// given the stable metadata, still matches the Rollout's template (undo and
// hash-collision checks), while a real template change does not.
func TestWithoutEphemeral(t *testing.T) {
	template := &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", "role": "base"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:v1"}}}}
	ro := &rampv1.Rollout{Spec: rampv1.RolloutSpec{Template: template, Strategy: rampv1.RolloutStrategy{Canary: &rampv1.CanaryStrategy{
		CanaryMetadata: &rampv1.PodTemplateMetadata{Labels: map[string]string{"role": "canary"}, Annotations: map[string]string{"phase": "canary"}},
	}}}}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
		LegacyEphemeralKeysAnnotation: ephemeralKeys{labels: []string{"role", "old"}, annotations: []string{"phase"}}.String()}}}
	rs.Spec.Template = *template.DeepCopy()
	rs.Spec.Template.Labels = map[string]string{"app": "web", "role": "canary", "old": "x", rampv1.DefaultRolloutUniqueLabelKey: "abc"}
	rs.Spec.Template.Annotations = map[string]string{"phase": "canary"}
	if got := withoutEphemeral(ro, rs, template); !apiequality.Semantic.DeepEqual(got, template) {
		t.Errorf("with its ephemeral keys reverted the template is %+v, want %+v", got.ObjectMeta, template.ObjectMeta)
	}
	rs.Spec.Template.Spec.Containers[0].Image = "app:v2"
	if apiequality.Semantic.DeepEqual(withoutEphemeral(ro, rs, template), template) {
		t.Error("a different image matched")
	}
}
