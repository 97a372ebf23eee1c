package internal_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// upstreamFiles are the files of api/v1alpha1 whose string constants are
// Argo Rollouts' own spelling: label and annotation keys, defaults,
// condition and Event reasons and messages. Tools (Argo CD, the kubectl
// plugin, users' alerts) match on them, so each is written once, there.
var upstreamFiles = []string{
	"keys.go",
	"rollout_defaults.go",
	"rollout_conditions.go",
	"experiment_conditions.go",
	"analysis_conditions.go",
}

// plainWords are values of those constants that are also ordinary words in
// messages (the rollout-type label's values: "Background" is both the
// label value and the word upstream's abort message uses), so a literal
// equal to one is not taken for a copy of the constant.
var plainWords = map[string]bool{"Step": true, "Background": true, "PrePromotion": true, "PostPromotion": true}

// TestUpstreamLiteralsLiveInAPI: no non-test Go file outside api/ spells one
// of those constants as a string literal; it names the constant instead.
// test/ is left out on purpose: the e2e and conformance suites spell
// upstream's strings themselves, so a typo in a constant is caught there.
func TestUpstreamLiteralsLiveInAPI(t *testing.T) {
	consts := upstreamConstants(t)
	if len(consts) < 50 {
		t.Fatalf("read %d upstream constants from api/v1alpha1: the file list is stale", len(consts))
	}
	var found []string
	for _, root := range []string{"../cmd", "../internal", "../hack"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "tools") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			found = append(found, literalsIn(t, path, consts)...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range found {
		t.Error(f)
	}
}

// TestUpstreamLiteralGuardSeesLiterals: the scan finds a constant's value
// spelled out, whole or inside a longer string for a key, and not in a
// comment, an import or a struct tag.
func TestUpstreamLiteralGuardSeesLiterals(t *testing.T) {
	src := `package p

import "rollout.argoproj.io/revision"

// "rollout.argoproj.io/revision" in a comment is fine.
type T struct {
	F string ` + "`json:\"rollout.argoproj.io/revision\"`" + `
}

var a = "rollout.argoproj.io/revision"
var b = "rollout.argoproj.io/revision=" + "3"
var c = "Rollout is healthy"
var d = "Rollout is healthy, mostly"
`
	path := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{"rollout.argoproj.io/revision": "RevisionAnnotation", "Rollout is healthy": "RolloutMessageHealthy"}
	got := literalsIn(t, path, consts)
	if len(got) != 3 || !strings.Contains(got[0], ":10:") || !strings.Contains(got[1], ":11:") || !strings.Contains(got[2], ":12:") {
		t.Errorf("literalsIn = %q, want lines 10, 11 and 12", got)
	}
}

// upstreamConstants maps the value of each string constant declared in
// upstreamFiles to its name.
func upstreamConstants(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range upstreamFiles {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("../api/v1alpha1", name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					if !plainWords[s] {
						out[s] = vs.Names[i].Name
					}
				}
			}
		}
	}
	return out
}

// literalsIn lists, as "file:line: ...", the string literals of the Go file
// at path that spell a value of consts: equal to it, or for a key (a value
// with a "/") containing it. Imports and struct tags are not code.
func literalsIn(t *testing.T, path string, consts map[string]string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	tags := map[*ast.BasicLit]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			return false
		case *ast.Field:
			tags[n.Tag] = true
		case *ast.BasicLit:
			if n.Kind != token.STRING || tags[n] {
				return true
			}
			s, err := strconv.Unquote(n.Value)
			if err != nil {
				return true
			}
			var names []string
			for v, name := range consts {
				if s == v || (strings.Contains(v, "/") && strings.Contains(s, v)) {
					names = append(names, name)
				}
			}
			if len(names) > 0 {
				sort.Strings(names)
				out = append(out, fset.Position(n.Pos()).String()+": "+n.Value+" spells rampv1."+strings.Join(names, ", rampv1.")+": use the constant")
			}
		}
		return true
	})
	return out
}
