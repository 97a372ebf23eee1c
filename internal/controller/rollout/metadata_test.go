package rollout

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

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
		LegacyEphemeralKeysAnnotation: "labels=role,old;annotations=phase"}}}
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
