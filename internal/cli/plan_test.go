package cli

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The -update flag rewrites golden files. It is registered only if no other
// test file of the package did, so several golden tests can share it.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite testdata/**/*.golden")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// runCLI runs the CLI as `ramp args...` and returns stdout, stderr and the
// exit code.
func runCLI(stdin string, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := Main(append([]string{"ramp"}, args...), Streams{In: strings.NewReader(stdin), Out: &out, Err: &errb})
	return out.String(), errb.String(), code
}

// golden compares got with testdata/<name>.golden, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if updating() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test ./internal/cli -run %s -update):\n--- got\n%s--- want\n%s", path, t.Name(), got, want)
	}
}

// TestPlanGolden plans every seed manifest, the seed-000 and seed-001
// shaped canaries, traffic-routed variants, upstream's e2e Rollout that
// runs setWeight 30 with dynamicStableScale (no stall), a blue-green with
// previewReplicaCount, and Rollouts the controller refuses.
func TestPlanGolden(t *testing.T) {
	seeds, err := filepath.Glob("../../test/e2e/testdata/seeds/*.yaml")
	if err != nil || len(seeds) < 8 {
		t.Fatalf("seed manifests: %v (found %d)", err, len(seeds))
	}
	type tc struct {
		name string
		args []string
	}
	var cases []tc
	for _, s := range seeds {
		cases = append(cases, tc{strings.TrimSuffix(filepath.Base(s), ".yaml"), []string{s}})
	}
	cases = append(cases,
		tc{"seed000-canary", []string{"testdata/plan/seed000-canary.yaml"}},
		tc{"seed000-canary-hpa", []string{"testdata/plan/seed000-canary.yaml", "--hpa"}},
		tc{"seed001-setweight", []string{"testdata/plan/seed001-setweight.yaml"}},
		tc{"routed", []string{"testdata/plan/routed.yaml"}},
		tc{"routed-hpa", []string{"testdata/plan/routed.yaml", "--hpa"}},
		tc{"003-rollouts-demo-replicas-10-hpa", []string{"../../test/e2e/testdata/seeds/003-rollouts-demo.yaml", "--replicas", "10", "--hpa"}},
		tc{"003-bluegreen-hpa", []string{"../../test/e2e/testdata/seeds/003-bluegreen.yaml", "--hpa"}},
		tc{"refused", []string{"testdata/plan/refused.yaml"}},
		tc{"upstream-dynamic-stable-scale", []string{"testdata/plan/upstream-dynamic-stable-scale.yaml"}},
		tc{"bluegreen-preview-count", []string{"testdata/plan/bluegreen-preview-count.yaml"}},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCLI("", append([]string{"plan"}, c.args...)...)
			if errOut != "" || code != 0 {
				out += fmt.Sprintf("exit %d: %s", code, errOut)
			}
			golden(t, filepath.Join("plan", c.name), out)
		})
	}
}

func TestPlanInputs(t *testing.T) {
	const (
		head     = "apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata: {name: web}\nspec:\n  replicas: 2\n"
		pods     = "  selector: {matchLabels: {app: web}}\n  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: web}]}}\n"
		strategy = "  strategy: {canary: {steps: [{setWeight: 50}]}}\n"
		ro       = head + pods + strategy
	)
	for _, c := range []struct {
		stdin string
		args  []string
		code  int
		in    string // substring of stdout + stderr
	}{
		{ro, []string{"plan", "-"}, 0, "0     setWeight: 50  50%     50%     1       1"},
		{ro + "---\n" + strings.Replace(ro, "web", "api", 1), []string{"plan", "-"}, 0, "Rollout api (canary)"},
		{"kind: [", []string{"plan", "-"}, 1, "-:1:1: error: yaml:"},
		{"apiVersion: v1\nkind: Service\n", []string{"plan", "-"}, 1, "no argoproj.io/v1alpha1 Rollout in -"},
		{strings.Replace(ro, "replicas: 2", "replicas: two", 1), []string{"plan", "-"}, 1, "ramp lint -"},
		{"", []string{"plan", "testdata/plan/missing.yaml"}, 1, "no such file"},
		{"", []string{"plan"}, 1, "accepts 1 arg(s)"},
		{ro, []string{"plan", "-", "--replicas", "-1"}, 1, "--replicas -1: want 0"},
		{ro, []string{"plan", "-", "--replicas", "3"}, 0, "Rollout web (canary): 3 replicas"},
		{strings.Replace(ro, "steps:", "maxSurge: 0, maxUnavailable: 0, steps:", 1), []string{"plan", "-"}, 1,
			"! Rollout web: invalid (InvalidSpec, nothing runs): spec.strategy.canary: maxSurge and maxUnavailable cannot both be 0\n"},
		{strings.Replace(ro, "steps: [{setWeight: 50}]", "steps: [{plugin: {name: x}}]", 1), []string{"plan", "-"}, 1,
			"! Rollout web: Ramp refuses this Rollout (InvalidSpec): spec.strategy.canary.steps[0]: plugin steps are not supported by this version of Ramp\n"},
		{head + strategy, []string{"plan", "-"}, 1, "! Rollout web: invalid (InvalidSpec, nothing runs): spec.template: required\n"},
	} {
		out, errOut, code := runCLI(c.stdin, c.args...)
		if code != c.code || !strings.Contains(out+errOut, c.in) {
			t.Errorf("%v: exit %d (want %d), output:\n%s%s\nwant it to contain %q", c.args, code, c.code, out, errOut, c.in)
		}
	}
}
