package plan

import (
	"maps"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func podTemplate(image string, labels, annotations map[string]string) *corev1.PodTemplateSpec {
	return &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: annotations},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name:  "web",
			Image: image,
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("0.5"),
				corev1.ResourceMemory: resource.MustParse("64Mi"),
			}},
		}}},
	}
}

func TestTemplateHashDeterministic(t *testing.T) {
	labels := map[string]string{"app": "web", "tier": "front", "team": "a", "zone": "b", "x": "y"}
	annotations := map[string]string{"a": "1", "b": "2", "c": "3", "d": "4"}
	want := TemplateHash(podTemplate("nginx:1.27", labels, annotations), nil)
	for i := range 50 {
		// Fresh maps: Go randomizes their iteration order.
		if got := TemplateHash(podTemplate("nginx:1.27", maps.Clone(labels), maps.Clone(annotations)), nil); got != want {
			t.Fatalf("try %d: hash %q, want %q", i, got, want)
		}
	}
	// "0.5" and "500m" are the same quantity and encode the same.
	tmpl := podTemplate("nginx:1.27", labels, annotations)
	tmpl.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("500m")
	if got := TemplateHash(tmpl, nil); got != want {
		t.Errorf("cpu 500m: hash %q, want %q as for 0.5", got, want)
	}
}

// TestTemplateHashGolden pins one hash: if it changes, every running Rollout
// would see its ReplicaSets as a new revision after an upgrade. A change that
// is intended (say a new k8s.io/api field) needs a migration note.
func TestTemplateHashGolden(t *testing.T) {
	if got, want := TemplateHash(podTemplate("nginx:1.27", map[string]string{"app": "web"}, nil), nil), "dc5hspq"; got != want {
		t.Errorf("hash %q, want %q", got, want)
	}
}

func TestTemplateHashDiffers(t *testing.T) {
	base := podTemplate("nginx:1.27", map[string]string{"app": "web"}, nil)
	zero, one := int32(0), int32(1)
	hashes := map[string]string{
		"base":                TemplateHash(base, nil),
		"image":               TemplateHash(podTemplate("nginx:1.28", map[string]string{"app": "web"}, nil), nil),
		"label":               TemplateHash(podTemplate("nginx:1.27", map[string]string{"app": "api"}, nil), nil),
		"annotation":          TemplateHash(podTemplate("nginx:1.27", map[string]string{"app": "web"}, map[string]string{"a": "b"}), nil),
		"collisionCount zero": TemplateHash(base, &zero),
		"collisionCount one":  TemplateHash(base, &one),
	}
	seen := map[string]string{}
	for what, h := range hashes {
		if other, ok := seen[h]; ok {
			t.Errorf("%s and %s share hash %q", what, other, h)
		}
		seen[h] = what
	}
}

func TestTemplateHashAlphabet(t *testing.T) {
	hashes := []string{TemplateHash(nil, nil), TemplateHash(&corev1.PodTemplateSpec{}, nil)}
	for i := range int32(500) {
		hashes = append(hashes, TemplateHash(podTemplate("img", nil, nil), &i))
	}
	for _, h := range hashes {
		if h == "" || len(h) > 10 || strings.Trim(h, hashAlphabet) != "" {
			t.Errorf("hash %q: want 1..10 characters of %q", h, hashAlphabet)
		}
	}
}

func TestEncodeHash(t *testing.T) {
	for _, tc := range []struct {
		v    uint32
		want string
	}{
		{0, "b"}, {1, "c"}, {26, "9"}, {27, "cb"}, {1<<32 - 1, "pdlz8r4"},
	} {
		if got := encodeHash(tc.v); got != tc.want {
			t.Errorf("encodeHash(%d) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
