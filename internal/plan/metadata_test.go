package plan

import (
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func md(labels map[string]string, annotations map[string]string) *rampv1.PodTemplateMetadata {
	return &rampv1.PodTemplateMetadata{Labels: labels, Annotations: annotations}
}

func TestEphemeralRole(t *testing.T) {
	canary := &rampv1.Rollout{Spec: rampv1.RolloutSpec{Strategy: rampv1.RolloutStrategy{Canary: &rampv1.CanaryStrategy{
		CanaryMetadata: md(map[string]string{"role": "canary"}, nil),
		StableMetadata: md(map[string]string{"role": "stable"}, nil),
	}}}}
	blueGreen := &rampv1.Rollout{Spec: rampv1.RolloutSpec{Strategy: rampv1.RolloutStrategy{BlueGreen: &rampv1.BlueGreenStrategy{
		PreviewMetadata: md(map[string]string{"role": "preview"}, nil),
		ActiveMetadata:  md(map[string]string{"role": "active"}, nil),
	}}}}
	for _, tc := range []struct {
		name          string
		ro            *rampv1.Rollout
		st            rampv1.RolloutStatus
		newHash, hash string
		want          string // the role label, "" for none
	}{
		{"canary: stable", canary, rampv1.RolloutStatus{StableRS: "a"}, "b", "a", "stable"},
		{"canary: the update's ReplicaSet", canary, rampv1.RolloutStatus{StableRS: "a"}, "b", "b", "canary"},
		{"canary: promoted, new is stable", canary, rampv1.RolloutStatus{StableRS: "b"}, "b", "b", "stable"},
		{"canary: an older ReplicaSet has no role", canary, rampv1.RolloutStatus{StableRS: "b"}, "b", "a", ""},
		{"blue-green: active", blueGreen, rampv1.RolloutStatus{StableRS: "a", BlueGreen: rampv1.BlueGreenStatus{ActiveSelector: "a"}}, "b", "a", "active"},
		{"blue-green: preview", blueGreen, rampv1.RolloutStatus{StableRS: "a", BlueGreen: rampv1.BlueGreenStatus{ActiveSelector: "a"}}, "b", "b", "preview"},
		{"blue-green: switched, before stableRS follows", blueGreen, rampv1.RolloutStatus{StableRS: "a", BlueGreen: rampv1.BlueGreenStatus{ActiveSelector: "b"}}, "b", "b", "active"},
		{"blue-green: previous active waiting to scale down", blueGreen, rampv1.RolloutStatus{StableRS: "b", BlueGreen: rampv1.BlueGreenStatus{ActiveSelector: "b"}}, "b", "a", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if m := EphemeralRole(tc.ro, &tc.st, tc.newHash, tc.hash); m != nil {
				got = m.Labels["role"]
			}
			if got != tc.want {
				t.Errorf("role %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEphemeralKeys(t *testing.T) {
	ro := &rampv1.Rollout{Spec: rampv1.RolloutSpec{Strategy: rampv1.RolloutStrategy{Canary: &rampv1.CanaryStrategy{
		CanaryMetadata: md(map[string]string{"role": "canary", "track": "new"}, map[string]string{"note": "x"}),
		StableMetadata: md(map[string]string{"role": "stable"}, nil),
	}}}}
	l, a := EphemeralKeys(ro)
	if !reflect.DeepEqual(l, []string{"role", "track"}) || !reflect.DeepEqual(a, []string{"note"}) {
		t.Errorf("keys %v %v, want [role track] [note]", l, a)
	}
	if l, a := EphemeralKeys(&rampv1.Rollout{}); l != nil || a != nil {
		t.Errorf("no strategy: keys %v %v", l, a)
	}
}

func TestMetadataPatch(t *testing.T) {
	s := func(v string) *string { return &v }
	// role "canary" -> "stable": role changes, track (canary only) goes,
	// app (also the template's) keeps the template's value.
	want := WantMetadata(map[string]string{"app": "web", "team": "a"}, map[string]string{"role": "stable"}, []string{"app", "role", "track"})
	if !reflect.DeepEqual(want, map[string]*string{"app": s("web"), "role": s("stable"), "track": nil}) {
		t.Fatalf("WantMetadata = %v", want)
	}
	for _, tc := range []struct {
		name    string
		current map[string]string
		want    map[string]*string
	}{
		{"change and remove", map[string]string{"app": "web", "role": "canary", "track": "new"},
			map[string]*string{"role": s("stable"), "track": nil}},
		{"already so", map[string]string{"app": "web", "role": "stable", "other": "kept"}, map[string]*string{}},
		{"nothing yet", nil, map[string]*string{"app": s("web"), "role": s("stable")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MetadataPatch(tc.current, want); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("MetadataPatch = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMetadataProblems(t *testing.T) {
	ro := &rampv1.Rollout{Spec: rampv1.RolloutSpec{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		Strategy: rampv1.RolloutStrategy{Canary: &rampv1.CanaryStrategy{
			CanaryMetadata: md(map[string]string{"app": "other", "role": "canary"}, nil),
			StableMetadata: md(map[string]string{"app": "web", rampv1.DefaultRolloutUniqueLabelKey: "x"}, nil),
		}}}}
	got := strings.Join(metadataProblems(ro), "\n")
	want := `spec.strategy.canary.canaryMetadata.labels.app: "other" would take the pods out of spec.selector (app=web)` + "\n" +
		"spec.strategy.canary.stableMetadata.labels.rollouts-pod-template-hash: the pod-template hash label is the controller's"
	if got != want {
		t.Errorf("problems:\n%s\nwant:\n%s", got, want)
	}
}
