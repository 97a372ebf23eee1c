//go:build e2e

package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// upstreamPluginVersion is the Argo Rollouts module test/upstream pins;
// its test/cmd/metrics-plugin-sample is the metric plugin TestProviderPlugin
// runs, built from that module unchanged.
const upstreamPluginVersion = "v1.9.1"

// upstreamMetricPlugin builds upstream's sample metric plugin (a
// Prometheus plugin registered as "argoproj/sample-prometheus") from its
// Go module, once per machine: the binary is cached under
// $RAMP_CACHE_DIR, else ~/.cache/ramp, like the cluster binaries.
func upstreamMetricPlugin(t *testing.T) string {
	t.Helper()
	cache := os.Getenv("RAMP_CACHE_DIR")
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		cache = filepath.Join(dir, "ramp")
	}
	bin := filepath.Join(cache, "upstream", "argo-rollouts-"+upstreamPluginVersion, "metrics-plugin-sample")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	cmd := exec.Command("go", "build", "-o", bin+".tmp", "github.com/argoproj/argo-rollouts/test/cmd/metrics-plugin-sample")
	cmd.Dir = filepath.Join("..", "upstream")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building upstream's sample metric plugin: %v\n%s", err, out)
	}
	if err := os.Rename(bin+".tmp", bin); err != nil {
		t.Fatal(err)
	}
	t.Logf("built upstream's sample metric plugin in %s", time.Since(began).Round(time.Second))
	return bin
}

// pluginRunYAML is an AnalysisRun of instance id measuring query with the
// sample plugin against Prometheus at address.
func pluginRunYAML(id, name, plugin, address, query string) string {
	return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: AnalysisRun
metadata: {name: %s, labels: {%s: %s}}
spec:
  metrics:
  - name: rate
    count: 1
    failureLimit: 0
    consecutiveErrorLimit: 0
    successCondition: "result[0] >= 0.9"
    provider:
      plugin:
        %s:
          address: %s
          query: %q
`, name, instanceLabel, id, plugin, address, query)
}

// TestProviderPlugin: upstream's sample metric plugin binary, built from
// its module and configured as upstream documents (metricProviderPlugins
// in the controller's ConfigMap, file:// location, sha256), runs under
// Ramp unchanged: a run measuring a good rate against the e2e Prometheus
// is Successful with the plugin's value, a bad one Failed, and a run
// naming a plugin the ConfigMap lacks is an Error saying so.
func TestProviderPlugin(t *testing.T) {
	t.Parallel()
	bin := upstreamMetricPlugin(t)
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	p := testPrometheus(t)
	ns := namespace(t, "plugin")
	good := fmt.Sprintf(`ramp_plugin_rate{namespace=%q,canary="good"}`, ns)
	bad := fmt.Sprintf(`ramp_plugin_rate{namespace=%q,canary="bad"}`, ns)
	p.Set(good, 0.97)
	p.Set(bad, 0.5)
	p.WaitQuery(t, good, "0.97")
	p.WaitQuery(t, bad, "0.5")

	apply(t, ns, fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata: {name: ramp-plugins}
data:
  metricProviderPlugins: |-
    - name: argoproj/sample-prometheus
      location: file://%s
      sha256: %s
`, bin, hex.EncodeToString(sum[:])))
	ctrl, err := startControllerEnv([]string{"POD_NAMESPACE=" + ns}, "--leader-election-namespace", ns, "--instance-id", ns,
		"--leader-elect=false", "--metric-plugins-configmap", "ramp-plugins", "--plugin-dir", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.stop)
	eventually(t, 60*time.Second, "plugin controller ready", ctrl.ready)

	apply(t, ns, pluginRunYAML(ns, "good", "argoproj/sample-prometheus", p.URL(), good))
	apply(t, ns, pluginRunYAML(ns, "bad", "argoproj/sample-prometheus", p.URL(), bad))
	apply(t, ns, pluginRunYAML(ns, "unknown", "argoproj/not-configured", p.URL(), good))
	ar := waitRun(t, ns, "good", 60*time.Second, rampv1.AnalysisPhaseSuccessful)
	m := ar.Status.MetricResults[0].Measurements
	if len(m) != 1 || m[0].Value != "[0.97]" || m[0].Metadata["ResolvedPrometheusQuery"] != good {
		t.Errorf("good: measurements %+v, want the plugin's value [0.97] and its GetMetadata", m)
	}
	waitRun(t, ns, "bad", 60*time.Second, rampv1.AnalysisPhaseFailed)
	ar = waitRun(t, ns, "unknown", 60*time.Second, rampv1.AnalysisPhaseError)
	if !strings.Contains(ar.Status.Message, "metric plugin argoproj/not-configured is not configured") {
		t.Errorf("unknown plugin: message %q", ar.Status.Message)
	}
	log, err := os.ReadFile(ctrl.logPath)
	if err != nil || !strings.Contains(string(log), `installed metric plugin`) {
		t.Errorf("the controller log does not tell the plugin's install (%v)", err)
	}
}
