//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestSeedManifestsApply applies every argoproj.io manifest extracted from
// the seeds with `kubectl apply --server-side` and checks that the API server
// accepts it without warnings and stores every field the manifest sets.
func TestSeedManifestsApply(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/seeds/*.yaml")
	if err != nil || len(files) < 8 {
		t.Fatalf("seed manifests: %v (found %d)", err, len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			docs := readDocs(t, f)
			ns := namespace(t, "seed")
			for _, d := range docs {
				if d.GetNamespace() != "" {
					createNamespace(t, d.GetNamespace())
				}
			}
			args := []string{"apply", "--server-side", "-f", f}
			if !anyNamespaced(docs) {
				args = append(args, "-n", ns)
			}
			_, stderr, err := kubectl(t, "", args...)
			if err != nil {
				t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, stderr)
			}
			if strings.Contains(strings.ToLower(stderr), "warning") {
				t.Errorf("kubectl apply warned:\n%s", stderr)
			}
			for _, want := range docs {
				if want.GetAPIVersion() != "argoproj.io/v1alpha1" {
					continue
				}
				got := &unstructured.Unstructured{}
				got.SetGroupVersionKind(want.GroupVersionKind())
				key := client.ObjectKey{Namespace: want.GetNamespace(), Name: want.GetName()}
				if key.Namespace == "" {
					key.Namespace = ns
				}
				if err := env.client.Get(context.Background(), key, got); err != nil {
					t.Fatalf("get %s %s: %v", want.GetKind(), key, err)
				}
				for _, missing := range missingFields(want.Object["spec"], got.Object["spec"], "spec") {
					t.Errorf("%s %s: field %s was not stored as applied", want.GetKind(), key, missing)
				}
			}
		})
	}
}

func readDocs(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	var out []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatalf("%s: %v", path, err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
	return out
}

func anyNamespaced(docs []*unstructured.Unstructured) bool {
	for _, d := range docs {
		if d.GetNamespace() != "" {
			return true
		}
	}
	return false
}

// missingFields lists the paths set in want whose value differs in got
// (values are compared after a JSON round trip, so 10 and 10.0 are equal).
func missingFields(want, got any, path string) []string {
	switch w := want.(type) {
	case map[string]any:
		g, _ := got.(map[string]any)
		var out []string
		for k, v := range w {
			out = append(out, missingFields(v, g[k], path+"."+k)...)
		}
		return out
	case []any:
		g, _ := got.([]any)
		if len(g) != len(w) {
			return []string{fmt.Sprintf("%s (length %d, stored %d)", path, len(w), len(g))}
		}
		var out []string
		for i := range w {
			out = append(out, missingFields(w[i], g[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	default:
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		var wv, gv any
		_ = json.Unmarshal(wj, &wv)
		_ = json.Unmarshal(gj, &gv)
		if !reflect.DeepEqual(wv, gv) {
			return []string{fmt.Sprintf("%s (applied %s, stored %s)", path, wj, gj)}
		}
		return nil
	}
}
