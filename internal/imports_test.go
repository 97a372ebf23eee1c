// Package internal_test holds the import rules of the module's layout
// (docs/architecture.md): what the API types and the pure packages may
// import. It reads the sources with go/parser: no build, no network.
package internal_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/ramp-rollouts/ramp"

// apiExceptions are the imports of api/ outside apimachinery that the
// served API needs as upstream declares it: pod templates and Job specs
// (k8s.io/api) and free-form JSON fields (apiextensions' JSON). Anything
// else breaks the rule.
var apiExceptions = []string{
	"k8s.io/api/batch/v1",
	"k8s.io/api/core/v1",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1",
}

// TestAPIImportsOnlyAPIMachinery: api/ imports the standard library,
// k8s.io/apimachinery, itself, and the named exceptions only.
func TestAPIImportsOnlyAPIMachinery(t *testing.T) {
	for dir, imports := range packages(t, "../api") {
		for _, imp := range imports {
			if isStd(imp) || strings.HasPrefix(imp, "k8s.io/apimachinery/") || strings.HasPrefix(imp, module+"/api/") ||
				slices.Contains(apiExceptions, imp) {
				continue
			}
			t.Errorf("%s imports %s: api/ may import only the standard library, k8s.io/apimachinery and itself", dir, imp)
		}
	}
}

// forbidden are what a pure package must not reach: an API client, the
// controller runtime, HTTP.
var forbidden = []string{"sigs.k8s.io/controller-runtime", "k8s.io/client-go", "net/http"}

// TestPurePackagesImportNoClient: plan, analysis (not its providers), view,
// experiment, the router and provider registries (traffic,
// analysis/provider), lint and doctor import no client, no
// controller-runtime and no net/http, directly or through another package
// of this module.
func TestPurePackagesImportNoClient(t *testing.T) {
	all := packages(t, ".")
	for dir := range all {
		if !pure(dir) {
			continue
		}
		for _, path := range reach(all, dir) {
			if i := slices.IndexFunc(forbidden, func(f string) bool { return path[len(path)-1] == f || strings.HasPrefix(path[len(path)-1], f+"/") }); i >= 0 {
				t.Errorf("%s imports %s (%s): a pure package must not import %s", dir, path[len(path)-1], strings.Join(path, " -> "), forbidden[i])
			}
		}
	}
}

// TestImportRuleSeesViolations: the rule's reach follows module packages,
// so a pure package importing a client through another package is caught.
func TestImportRuleSeesViolations(t *testing.T) {
	all := map[string][]string{"plan": {module + "/internal/traffic"}, "traffic": {"sigs.k8s.io/controller-runtime/pkg/client"}}
	got := reach(all, "plan")
	want := []string{module + "/internal/traffic", "sigs.k8s.io/controller-runtime/pkg/client"}
	if !slices.ContainsFunc(got, func(p []string) bool { return slices.Equal(p, want) }) {
		t.Errorf("reach(plan) = %v, want the path %v", got, want)
	}
	if !pure("analysis") || pure("analysis/provider/job") || !pure("plan") || !pure("experiment") || !pure("view") || pure("controller/experiment") ||
		!pure("traffic") || pure("traffic/istio") || pure("traffic/objects") || !pure("analysis/provider") || !pure("lint") || !pure("doctor") {
		t.Error("pure() does not select plan, analysis (without the providers), view, experiment, the traffic and provider registries, lint and doctor")
	}
}

// pure reports whether dir (relative to internal/) is one of the pure packages.
func pure(dir string) bool {
	switch dir {
	case "traffic", "analysis/provider", "lint", "doctor":
		// The registries of routers and providers (not their
		// implementations), and lint and doctor, which read them.
		return true
	}
	first, _, _ := strings.Cut(dir, "/")
	switch first {
	case "plan", "view", "experiment", "action":
		return true
	case "analysis":
		return !strings.HasPrefix(dir, "analysis/provider/")
	}
	return false
}

// reach lists every import path dir reaches through the module's internal
// packages, each as the chain of imports that leads to it.
func reach(all map[string][]string, dir string) [][]string {
	var out [][]string
	seen := map[string]bool{}
	var walk func(dir string, chain []string)
	walk = func(dir string, chain []string) {
		for _, imp := range all[dir] {
			path := append(slices.Clone(chain), imp)
			out = append(out, path)
			if sub, ok := strings.CutPrefix(imp, module+"/internal/"); ok && !seen[sub] {
				seen[sub] = true
				walk(sub, path)
			}
		}
	}
	walk(dir, nil)
	return out
}

// packages maps each package directory under root (relative to root) to
// the imports of its non-test files.
func packages(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			if !slices.Contains(out[rel], p) {
				out[rel] = append(out[rel], p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("no Go package under %s", root)
	}
	return out
}

// isStd reports whether an import path is the standard library's (no dot
// in its first element).
func isStd(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}
