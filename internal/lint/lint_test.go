package lint

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of TestGolden")

// TestGolden: each fixture lints to exactly its golden findings, with
// file:line:column, kind/name and field. testdata/*.yaml hold the cases of
// one rule each, good and bad; testdata/invalid/*.yaml one mistake each
// (every one of them must have an error). `go test -run TestGolden -update`
// rewrites the golden files.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	invalid, err := filepath.Glob("testdata/invalid/*.yaml")
	if err != nil || len(invalid) < 20 {
		t.Fatalf("invalid fixtures: %v (%d)", err, len(invalid))
	}
	for _, file := range append(files, invalid...) {
		t.Run(strings.TrimPrefix(file, "testdata/"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			fs := Check(File{Name: filepath.Base(file), Data: data})
			var lines []string
			for _, f := range fs {
				lines = append(lines, f.String())
			}
			got := strings.Join(lines, "\n") + "\n"
			golden := strings.TrimSuffix(file, ".yaml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("findings:\n%s\nwant (%s):\n%s", got, golden, want)
			}
			if strings.Contains(file, "/invalid/") && !HasErrors(fs) {
				t.Errorf("no error for an invalid manifest")
			}
			for _, f := range fs {
				if f.Line < 1 || f.Column < 1 || f.Line > strings.Count(string(data), "\n")+1 {
					t.Errorf("finding outside the file: %s", f)
				}
			}
		})
	}
}

// TestAcrossFiles: an HPA is checked against a Rollout in another file, and
// findings come in the files' order.
func TestAcrossFiles(t *testing.T) {
	data, err := os.ReadFile("testdata/hpa-traffic-routing.yaml")
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.SplitN(string(data), "\n---\n", 3)
	fs := Check(File{Name: "hpa.yaml", Data: []byte(docs[1])}, File{Name: "rollout.yaml", Data: []byte(docs[0])})
	if len(fs) != 1 || fs[0].File != "hpa.yaml" || fs[0].Line != 10 || fs[0].Column != 5 || fs[0].Severity != Warning {
		t.Fatalf("findings %v, want one warning at hpa.yaml:10:5 (spec.metrics[0])", fs)
	}
	if HasErrors(fs) {
		t.Error("HasErrors = true for a warning")
	}
}

func TestFindingString(t *testing.T) {
	for _, tc := range []struct {
		f    Finding
		want string
	}{
		{Finding{File: "a.yaml", Line: 3, Column: 5, Kind: "Rollout", Name: "web", Field: "spec.strategy", Severity: Error, Message: "bad"},
			"a.yaml:3:5: error: Rollout/web: spec.strategy: bad"},
		{Finding{File: "-", Line: 1, Severity: Warning, Message: "odd"}, "-:1:1: warning: odd"},
	} {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestSplitField(t *testing.T) {
	for msg, want := range map[string][2]string{
		"spec.template: required":                                    {"spec.template", "required"},
		`spec.selector "app=a" does not match x`:                     {"spec.selector", `"app=a" does not match x`},
		`spec.strategy.canary.steps[0].pause.duration "1x": time: e`: {"spec.strategy.canary.steps[0].pause.duration", `"1x": time: e`},
	} {
		if f, rest := splitField(msg); f != want[0] || rest != want[1] {
			t.Errorf("splitField(%q) = %q, %q; want %q, %q", msg, f, rest, want[0], want[1])
		}
	}
}
