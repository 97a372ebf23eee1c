package cli

import (
	"strings"
	"testing"
)

func TestLintCommand(t *testing.T) {
	for _, c := range []struct {
		name  string
		stdin string
		args  []string
		code  int
		out   string // stdout, exactly
		err   string // substring of stderr
	}{
		{name: "seeds are clean", args: []string{"lint", "../../test/e2e/testdata/seeds/003-rollouts-demo.yaml", "../../test/e2e/testdata/seeds/003-bluegreen.yaml"}},
		{name: "warnings exit 0", args: []string{"lint", "testdata/lint/hook.yaml"},
			out: "testdata/lint/hook.yaml:12:9: warning: Job/rollout-promoted*: spec.template.spec.containers[0]: promotes a Rollout from an Argo CD PostSync hook: "},
		{name: "errors exit 1", args: []string{"lint", "testdata/lint/hook.yaml", "testdata/lint/weight.yaml"}, code: 1,
			out: "testdata/lint/hook.yaml:12:9: warning: Job/rollout-promoted*: spec.template.spec.containers[0]: promotes a Rollout from an Argo CD PostSync hook: " +
				"|testdata/lint/weight.yaml:16:16: error: Rollout/web: spec.strategy.canary.steps[0].setWeight: 120 must be between 0 and 100 (trafficRouting.maxTrafficWeight, 100 when unset)",
			err: "lint: 1 error(s), 1 warning(s)"},
		{name: "stdin", stdin: "apiVersion: v1\nkind: ConfigMap\n---\napiVersion: v1\nmetadata:\n  name: x\n   bad: y\n", args: []string{"lint", "-"}, code: 1,
			out: "-:7:4: error: yaml: line 7: mapping values are not allowed in this context"},
		{name: "json", args: []string{"lint", "-o", "json", "testdata/lint/weight.yaml"}, code: 1,
			out: `[|  {|    "file": "testdata/lint/weight.yaml",|    "line": 16,|    "column": 16,|    "kind": "Rollout",|    "name": "web",|` +
				`    "field": "spec.strategy.canary.steps[0].setWeight",|    "severity": "error",|    "message": "120 must be between 0 and 100|  }|]`},
		{name: "json clean", args: []string{"lint", "-o", "json", "../../test/e2e/testdata/seeds/003-bluegreen.yaml"}, out: "[]"},
		{name: "bad output", args: []string{"lint", "-o", "yaml", "testdata/lint/weight.yaml"}, code: 2, err: "want text or json"},
		{name: "missing file", args: []string{"lint", "testdata/lint/missing.yaml"}, code: 2, err: "no such file"},
		{name: "no file", args: []string{"lint"}, code: 2, err: "name at least one FILE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCLI(c.stdin, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr %q", code, c.code, errOut)
			}
			// Compare each line's start: messages are the lint package's to test.
			got, want := strings.Split(strings.TrimSpace(out), "\n"), strings.Split(c.out, "|")
			if len(got) != len(want) {
				t.Fatalf("stdout:\n%s\nwant lines starting:\n%s", out, strings.Join(want, "\n"))
			}
			for i := range want {
				if !strings.HasPrefix(got[i], want[i]) {
					t.Errorf("line %d:\n got %s\nwant %s...", i+1, got[i], want[i])
				}
			}
			if !strings.Contains(errOut, c.err) {
				t.Errorf("stderr %q, want it to contain %q", errOut, c.err)
			}
		})
	}
}
