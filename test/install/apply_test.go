package install

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// kubectl runs the local control plane's kubectl (RAMP_KUBECTL against
// RAMP_E2E_KUBECONFIG, both set by hack/test.sh), skipping without them.
func kubectl(t *testing.T, stdin []byte, args ...string) string {
	t.Helper()
	kc, bin := os.Getenv("RAMP_E2E_KUBECONFIG"), os.Getenv("RAMP_KUBECTL")
	if kc == "" || bin == "" {
		t.Skip("RAMP_E2E_KUBECONFIG and RAMP_KUBECTL not set (hack/test.sh sets them)")
	}
	cmd := exec.Command(bin, append([]string{"--kubeconfig", kc}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// ensureNamespace creates ns for real (a dry run of a namespaced object
// needs its namespace to exist); it is left for later runs.
func ensureNamespace(t *testing.T, ns string) {
	t.Helper()
	kubectl(t, []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: "+ns+"}\n"), "apply", "--server-side", "-f", "-")
}

// dryRun applies manifests with a server-side dry run: the API server
// validates every object against its schema (and the CRDs' structural
// schemas) without storing any, and says how many it accepted.
func dryRun(t *testing.T, manifests []byte) int {
	t.Helper()
	out := kubectl(t, manifests, "apply", "--server-side", "--force-conflicts", "--dry-run=server", "-f", "-")
	return strings.Count(out, "(server dry run)")
}

// TestApplyDryRun: the kustomize install (config/default) and the chart,
// with its default values and namespace-scoped with extra args, are
// accepted by the local API server object by object.
func TestApplyDryRun(t *testing.T) {
	kustomized := kubectl(t, nil, "kustomize", filepath.Join(repo, "config", "default"))
	ensureNamespace(t, "ramp-system")
	if n, want := dryRun(t, []byte(kustomized)), strings.Count(kustomized, "\nkind: "); n != want {
		t.Errorf("config/default: %d objects accepted, want %d", n, want)
	}
	ensureNamespace(t, "ramp-chart-dry-run")
	for name, set := range map[string]map[string]any{
		"defaults": nil,
		"namespaced": {"clusterInstall": false, "controller.replicas": 1,
			"controller.extraArgs": []any{"--kube-api-qps=80"}, "controller.metrics.enabled": true},
	} {
		objs := render(t, "ramp-chart-dry-run", set)
		var docs []string
		for _, o := range objs {
			b, err := yaml.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, string(b))
		}
		if n := dryRun(t, []byte(strings.Join(docs, "---\n"))); n != len(objs) {
			t.Errorf("chart %s: %d of %d objects accepted", name, n, len(objs))
		}
	}
}
