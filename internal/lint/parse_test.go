package lint

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestParseLines(t *testing.T) {
	in := "# header comment\r\n" +
		"apiVersion: v1\r\nkind: ConfigMap\r\nmetadata: {name: a}\r\n" +
		"--- # second\n\n# comment\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n" +
		"--- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n" +
		"---\n---\n" +
		"apiVersion: v1\nkind: ConfigMap\ndata:\n  s: |\n    ----\n    not a separator\n"
	objs, fs := Parse("f.yaml", []byte(in))
	if len(fs) != 0 {
		t.Fatalf("findings: %v", fs)
	}
	var got []string
	for _, o := range objs {
		got = append(got, fmt.Sprintf("%d %s", o.Line, o.Kind))
	}
	want := "2 ConfigMap|8 ConfigMap|11 ConfigMap|14 ConfigMap"
	if strings.Join(got, "|") != want {
		t.Errorf("objects at %q, want %q", strings.Join(got, "|"), want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"apiVersion: v1\nkind: A\n---\nkind: X\nkind: Y\n", `f.yaml:5:1: error: yaml: unmarshal errors: line 5: key "kind" already set in map`},
		{"apiVersion: v1\nkind: [x]\n", "f.yaml:1:1: error: not a Kubernetes object: want a mapping with string apiVersion and kind"},
		{"\n\nkind: X\n", "f.yaml:3:1: error: apiVersion: Required value"},
		{"a:\n\tb: c\n", "f.yaml:2:2: error: yaml: line 2: found character that cannot start any token"},
	} {
		_, fs := Parse("f.yaml", []byte(tc.in))
		if len(fs) == 0 || fs[0].String() != tc.want {
			t.Errorf("Parse(%q) = %v, want %s", tc.in, fs, tc.want)
		}
	}
}

// FuzzParse: any input yields objects and findings on lines of the input,
// and Lint never panics on what Parse returns.
func FuzzParse(f *testing.F) {
	f.Add([]byte("apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nspec:\n  strategy: {canary: {steps: [{setWeight: 20}]}}\n"))
	f.Add([]byte("---\n--- x\n- a\n---\n{a: b}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, fs := Parse("f", data)
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, o := range objs {
			if o.Line < 1 || o.Line > lines {
				t.Fatalf("object at line %d of %d", o.Line, lines)
			}
		}
		for _, x := range append(fs, Lint(objs)...) {
			if x.Line < 1 {
				t.Fatalf("finding at line %d: %s", x.Line, x)
			}
		}
	})
}
