package analysis

import (
	"strings"
	"testing"
)

func TestFieldValue(t *testing.T) {
	obj := map[string]any{
		"metadata": map[string]any{"name": "web", "labels": map[string]any{"app.kubernetes.io/name": "web", "app": "a"}},
		"spec":     map[string]any{"replicas": float64(5), "template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"image": "nginx:1"}}}}},
	}
	for _, tc := range []struct{ path, want, err string }{
		{path: "metadata.name", want: "web"},
		{path: "metadata.labels['app.kubernetes.io/name']", want: "web"},
		{path: `metadata.labels["app"]`, want: "a"},
		{path: "spec.replicas", want: "5"},
		{path: "spec.template.spec.containers[0].image", want: "nginx:1"},
		{path: "spec.template.spec.containers[1].image", err: "no such field"},
		{path: "metadata.labels['missing']", err: "no such field"},
		{path: "metadata.labels['x", err: "unterminated"},
		{path: "spec.template.spec.containers[a]", err: "bad index"},
	} {
		got, err := FieldValue(obj, tc.path)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err = %v, want %q", tc.path, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s = %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
}

func FuzzFieldValue(f *testing.F) {
	f.Add("metadata.labels['a']")
	f.Add("a[0].b[")
	f.Fuzz(func(t *testing.T, path string) {
		_, _ = FieldValue(map[string]any{"a": []any{map[string]any{"b": "c"}}}, path) // never panics
	})
}
