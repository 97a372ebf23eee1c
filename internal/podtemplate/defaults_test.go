package podtemplate

import (
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"
)

func load(t testing.TB, file string) []corev1.PodTemplateSpec {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var ts []corev1.PodTemplateSpec
	if err := yaml.UnmarshalStrict(b, &ts); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return ts
}

// TestDefaultedAsStored: each template, defaulted, equals what a real API
// server stored for it in a ReplicaSet (testdata/stored.yaml, written by
// hack/podtemplate-stored.sh), and not what it stored for the others.
func TestDefaultedAsStored(t *testing.T) {
	in, stored := load(t, "testdata/templates.yaml"), load(t, "testdata/stored.yaml")
	if len(in) != len(stored) || len(in) < 3 {
		t.Fatalf("%d templates, %d stored", len(in), len(stored))
	}
	for i := range in {
		got := Defaulted(&in[i])
		for j := range stored {
			if eq := apiequality.Semantic.DeepEqual(got, &stored[j]); eq != (i == j) {
				gy, _ := yaml.Marshal(got)
				t.Errorf("template %d defaulted, equal to stored %d: %v\n%s", i, j, eq, gy)
			}
		}
		if apiequality.Semantic.DeepEqual(&in[i], &stored[i]) {
			t.Errorf("template %d already equals its stored form: the test proves nothing", i)
		}
	}
}

// TestDefaultedLeavesInput: the template passed in is not modified.
func TestDefaultedLeavesInput(t *testing.T) {
	in := load(t, "testdata/templates.yaml")[1]
	before := in.DeepCopy()
	_ = Defaulted(&in)
	if !apiequality.Semantic.DeepEqual(&in, before) {
		t.Error("Defaulted changed its input")
	}
}

func TestPullPolicy(t *testing.T) {
	for image, want := range map[string]corev1.PullPolicy{
		"nginx": corev1.PullAlways, "nginx:latest": corev1.PullAlways, "nginx:1.25": corev1.PullIfNotPresent,
		"registry.example:5000/app": corev1.PullAlways, "registry.example:5000/app:v2": corev1.PullIfNotPresent,
		"app@sha256:abc": corev1.PullIfNotPresent,
	} {
		if got := pullPolicy(image); got != want {
			t.Errorf("%s: %s, want %s", image, got, want)
		}
	}
}
