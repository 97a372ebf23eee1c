//go:build conformance

package conformance

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	_ "github.com/ramp-rollouts/ramp/internal/builtin" // lint and the planner read the router and provider registries
	"github.com/ramp-rollouts/ramp/internal/lint"
)

// lintDifference is a class of upstream manifests on which `ramp lint` and
// upstream's `kubectl argo rollouts lint` intentionally disagree; each id has
// its row in docs/conformance.md (TestLintDifferencesDocumented).
type lintDifference struct {
	id    string
	files []string // paths inside upstream's module
}

// lintDifferences: every file of the corpus where the verdicts differ is
// listed here, and every file listed here must still differ.
var lintDifferences = []lintDifference{
	// Upstream's lint checks only Rollouts; these other kinds are in its own
	// expectedfailures set (upstream's controller fails them at runtime),
	// and Ramp's lint reports the cause before they are applied.
	{"lint-all-kinds", []string{
		"test/e2e/expectedfailures/analysis-run-prometheus-bad-server.yaml",
		"test/e2e/expectedfailures/malformed-analysisrun.yaml",
		"test/e2e/expectedfailures/malformed-analysistemplate.yaml",
		"test/e2e/expectedfailures/malformed-clusteranalysistemplate.yaml",
		"test/e2e/expectedfailures/malformed-experiment.yaml",
		"test/e2e/expectedfailures/experiment-invalid.yaml",
	}},
	// Upstream's lint only links an Ingress to a Rollout when the Ingress
	// already routes to the Service the router splits, so it never reports
	// one that does not; upstream's controller refuses it (InvalidSpec).
	{"lint-ingress-backend", []string{
		"test/e2e/functional/alb-canary-multi-ingress-rollout.yaml",
	}},
	// Features this version of Ramp's controller does not run: lint says so
	// with the controller's words rather than pass a manifest that will not
	// progress.
	{"lint-unsupported-weighted-experiment", []string{
		"examples/traffic-routing-experiment-step/istio-host-split-experiment-step.yaml",
		"examples/traffic-routing-experiment-step/rollout-alb-experiment-step.yaml",
		"examples/traffic-routing-experiment-step/rollout-smi-experiment-step.yaml",
		"test/e2e/alb/rollout-alb-experiment-no-setweight.yaml",
		"test/e2e/alb/rollout-alb-experiment.yaml",
		"test/e2e/alb/rollout-alb-multi-ingress-experiment-no-setweight.yaml",
		"test/e2e/alb/rollout-alb-multi-ingress-experiment.yaml",
		"test/e2e/istio/istio-host-split-experiment-step.yaml",
		"test/e2e/istio/istio-subset-split-experiment-step.yaml",
		"test/e2e/smi/rollout-smi-experiment.yaml",
	}},
	{"lint-unsupported-router", []string{
		"examples/ambassador/rollout.yaml",
		"examples/apisix/rollout.yaml",
		"examples/appmesh/canary-rollout.yaml",
		"test/e2e/apisix/rollout-apisix-canary-set-header.yaml",
		"test/e2e/apisix/rollout-apisix-canary.yaml",
		"test/e2e/appmesh/appmesh-canary-rollout.yaml",
	}},
	{"lint-unsupported-step-plugin", []string{
		"test/e2e/step-plugin/disabled-rollout.yaml",
		"test/e2e/step-plugin/invalid-rollout.yaml",
	}},
}

// runtimeFailures are upstream's expectedfailures that no offline check can
// see: they fail only when run (an image that does not exist, a Job that
// exits 1, an AnalysisTemplate that is not in the cluster).
var runtimeFailures = map[string]string{
	"test/e2e/expectedfailures/experiment-degrade.yaml":                "the image tag does not exist in the registry",
	"test/e2e/expectedfailures/experiment-failed-analysis.yaml":        "the analysis Job's container exits 1",
	"test/e2e/expectedfailures/experiment-error-template-missing.yaml": "the AnalysisTemplate is absent from the cluster",
}

// TestLintCorpus runs `ramp lint`'s checks and upstream's lint (the plugin
// built from its module) on every upstream example, e2e and docs manifest
// holding Ramp's kinds, one file at a time, and asserts: no file upstream
// accepts gets an error from Ramp, no file upstream rejects passes Ramp,
// every expectedfailures manifest is an error in Ramp (but those that fail
// only at runtime), each except the listed intended differences.
func TestLintCorpus(t *testing.T) {
	mod := os.Getenv("RAMP_CONF_UPSTREAM_MODULE")
	if mod == "" {
		t.Fatal("RAMP_CONF_UPSTREAM_MODULE is unset; run with `make conformance`")
	}
	var files []string
	for _, dir := range []string{"examples", "test/e2e", "docs"} {
		err := filepath.WalkDir(filepath.Join(mod, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || (!strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml")) {
				return err
			}
			data, err := os.ReadFile(p)
			if err == nil && strings.Contains(string(data), "argoproj.io/") {
				rel, _ := filepath.Rel(mod, p)
				files = append(files, rel)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(files)
	if len(files) < 100 {
		t.Fatalf("corpus: %d files, want the 100+ upstream ships", len(files))
	}
	intended := map[string]string{}
	for _, d := range lintDifferences {
		for _, f := range d.files {
			intended[f] = d.id
		}
	}

	// Ramp: every file, one process, one file at a time.
	rampErr := map[string][]lint.Finding{}
	start := time.Now()
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(mod, f))
		if err != nil {
			t.Fatal(err)
		}
		fs := lint.Check(lint.File{Name: f, Data: data})
		if lint.HasErrors(fs) {
			rampErr[f] = fs
		}
	}
	t.Logf("ramp lint: %d files in %v", len(files), time.Since(start).Round(time.Millisecond))

	var falseErrors, missed, stale []string
	for _, f := range files {
		upstreamFails, out := upstreamLint(t, filepath.Join(mod, f))
		rampFails := rampErr[f] != nil
		id, listed := intended[f]
		switch {
		case rampFails == upstreamFails && !listed:
		case rampFails == upstreamFails:
			stale = append(stale, f+" ("+id+"): both linters now agree; remove it from lintDifferences")
		case listed:
		case rampFails:
			falseErrors = append(falseErrors, f+":\n"+findings(rampErr[f]))
		default:
			missed = append(missed, f+": upstream: "+out)
		}
		if strings.Contains(f, "expectedfailures/") && !rampFails {
			if _, runtime := runtimeFailures[f]; !runtime {
				missed = append(missed, f+": in upstream's expectedfailures, no error from ramp lint")
			}
		}
	}
	for _, list := range []struct {
		what  string
		items []string
	}{{"false errors (upstream accepts)", falseErrors}, {"missed errors (upstream rejects)", missed}, {"stale intended differences", stale}} {
		if len(list.items) > 0 {
			t.Errorf("%d %s:\n%s", len(list.items), list.what, strings.Join(list.items, "\n"))
		}
	}
	t.Logf("corpus: %d files; ramp errors on %d; intended differences %d", len(files), len(rampErr), len(intended))
}

// upstreamLint runs upstream's `kubectl argo rollouts lint -f file`.
func upstreamLint(t *testing.T, path string) (fails bool, out string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := exec.CommandContext(ctx, cfg.plugin, "lint", "-f", path).CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("upstream lint %s: %v", path, err)
	}
	return err != nil, strings.TrimSpace(string(b))
}

func findings(fs []lint.Finding) string {
	var lines []string
	for _, f := range fs {
		lines = append(lines, "  "+f.String())
	}
	return strings.Join(lines, "\n")
}

// TestLintDifferencesDocumented: every intended lint difference has its row
// in docs/conformance.md.
func TestLintDifferencesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/conformance.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range lintDifferences {
		if !strings.Contains(string(doc), "| `"+d.id+"` |") {
			t.Errorf("lint difference %q has no row \"| `%s` | ...\" in docs/conformance.md", d.id, d.id)
		}
	}
}
