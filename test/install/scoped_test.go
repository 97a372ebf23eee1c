package install

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"
)

// TestNamespacedChartRunsController: the chart with clusterInstall=false
// grants enough. Its ServiceAccount and RBAC are applied for real to the
// local control plane, then the controller runs with the Deployment's own
// arguments as that ServiceAccount (kubeconfig impersonation): it must
// sync its informers (ClusterAnalysisTemplates included) and take the
// Lease in the release namespace.
func TestNamespacedChartRunsController(t *testing.T) {
	bin := os.Getenv("RAMP_CONTROLLER_BIN")
	if bin == "" {
		t.Skip("RAMP_CONTROLLER_BIN not set (hack/test.sh sets it)")
	}
	const ns = "ramp-chart-scoped"
	ensureNamespace(t, ns)
	objs := render(t, ns, map[string]any{"clusterInstall": false, "installCRDs": false})
	var docs []string
	for _, o := range objs {
		if o.kind() == "Deployment" {
			continue
		}
		b, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	manifests := []byte(strings.Join(docs, "---\n"))
	kubectl(t, manifests, "apply", "--server-side", "--force-conflicts", "-f", "-")
	t.Cleanup(func() { kubectl(t, manifests, "delete", "--ignore-not-found", "--wait=false", "-f", "-") })

	// A Lease left by an earlier run (its holder killed) would pass the
	// check below without this controller ever leading.
	kubectl(t, nil, "delete", "lease", "ramp-controller", "-n", ns, "--ignore-not-found")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	probe := l.Addr().String()
	_ = l.Close()
	flags := append(args(t, objs), "--health-probe-bind-address="+probe, "--metrics-bind-address=0",
		"--kubeconfig="+impersonating(t, "system:serviceaccount:"+ns+":ramp-controller"))
	cmd := exec.Command(bin, flags...)
	cmd.Env = append(os.Environ(), "POD_NAMESPACE="+ns)
	logFile := filepath.Join(t.TempDir(), "controller.log")
	out, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); _ = out.Close() })

	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + probe + "/readyz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logFile)
			t.Fatalf("the controller, run as the chart's ServiceAccount, is not ready after 60s (last: %v)\n%s", err, log)
		}
		time.Sleep(200 * time.Millisecond) // polling a condition, with a deadline
	}
	for {
		holder := kubectl(t, nil, "get", "lease", "ramp-controller", "-n", ns, "--ignore-not-found", "-o", "jsonpath={.spec.holderIdentity}")
		if holder != "" {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logFile)
			t.Fatalf("no leader in %s/ramp-controller after 60s\n%s", ns, log)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if log, _ := os.ReadFile(logFile); strings.Contains(string(log), "forbidden") {
		t.Errorf("RBAC denial in the controller's log:\n%s", log)
	}
}

// impersonating writes a copy of RAMP_E2E_KUBECONFIG acting as user.
func impersonating(t *testing.T, user string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(os.Getenv("RAMP_E2E_KUBECONFIG"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ai := range cfg.AuthInfos {
		ai.Impersonate = user
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}
