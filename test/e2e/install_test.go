//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
)

const serviceAccount = "system:serviceaccount:ramp-system:ramp-controller"

// TestInstallManifestsGrantLeastPrivilege applies the kustomize install
// (config/default: CRDs, generated RBAC, Deployment), then runs the real
// controller as its ServiceAccount (kubeconfig impersonation): the generated
// RBAC must be enough for it to become ready and lead, and nothing more than
// it needs may be granted.
//
// Not parallel: its controller runs cluster-wide with no instance id, as the
// install does, and must not reconcile the parallel tests' Rollouts beside
// the suite's controller.
func TestInstallManifestsGrantLeastPrivilege(t *testing.T) {
	applyInstall(t)
	for _, tc := range []struct {
		verb, resource, ns string
		want               string
	}{
		{"watch", "rollouts.argoproj.io", "team-a", "yes"},
		{"patch", "rollouts.argoproj.io/status", "team-a", "yes"},
		{"create", "replicasets.apps", "team-a", "yes"},
		{"update", "leases.coordination.k8s.io", "ramp-system", "yes"},
		{"update", "leases.coordination.k8s.io", "kube-system", "no"},
		{"get", "secrets", "team-a", "yes"}, // one Secret, read when a measurement needs a secretKeyRef argument
		{"list", "secrets", "team-a", "no"}, // never cached, never listed
		{"watch", "secrets", "team-a", "no"},
		{"create", "jobs.batch", "team-a", "yes"}, // job metric provider
		{"update", "jobs.batch", "team-a", "no"},
		{"delete", "rollouts.argoproj.io", "team-a", "no"},
		{"create", "pods", "team-a", "no"},
		{"delete", "services", "team-a", "no"},
		// Route objects, from the routers' own markers: written with update
		// (internal/traffic/objects), never patched.
		{"update", "httproutes.gateway.networking.k8s.io", "team-a", "yes"},
		{"patch", "httproutes.gateway.networking.k8s.io", "team-a", "no"},
		{"create", "ingresses.networking.k8s.io", "team-a", "yes"}, // the NGINX canary Ingress
		{"patch", "ingresses.networking.k8s.io", "team-a", "no"},
		{"delete", "virtualservices.networking.istio.io", "team-a", "no"},
		// Ramp's own objects are written with patch only (issue 24 §3): the
		// update verbs, /scale and deleting Experiments are not granted.
		{"update", "services", "team-a", "no"},
		{"update", "replicasets.apps", "team-a", "no"},
		{"update", "rollouts.argoproj.io", "team-a", "no"},
		{"update", "rollouts.argoproj.io/status", "team-a", "no"},
		{"get", "rollouts.argoproj.io/scale", "team-a", "no"},
		{"update", "rollouts.argoproj.io/scale", "team-a", "no"},
		{"patch", "rollouts.argoproj.io/scale", "team-a", "no"},
		{"update", "experiments.argoproj.io", "team-a", "no"},
		{"update", "analysisruns.argoproj.io", "team-a", "no"},
		{"delete", "experiments.argoproj.io", "team-a", "no"},
		{"patch", "experiments.argoproj.io", "team-a", "yes"},
	} {
		args := []string{"auth", "can-i", tc.verb, tc.resource, "-n", tc.ns, "--as", serviceAccount}
		if res, sub, ok := strings.Cut(tc.resource, "/"); ok { // can-i reads TYPE/NAME as an object's name
			args[3] = res
			args = append(args, "--subresource", sub)
		}
		out, _, _ := kubectl(t, "", args...)
		if got := strings.TrimSpace(out); got != tc.want {
			t.Errorf("can %s %s in %s: %q, want %q", tc.verb, tc.resource, tc.ns, got, tc.want)
		}
	}

	p, err := startController("ramp-system", "--kubeconfig", impersonatingKubeconfig(t, serviceAccount))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.stop)
	eventually(t, 60*time.Second, "controller running as its ServiceAccount is ready and leads", p.readyAndLeading)
	log, _ := os.ReadFile(p.logPath)
	if rbacDenial.Match(log) { // not "forbidden: unable to create new content in namespace ... being terminated"
		t.Errorf("controller hit an RBAC denial:\n%s", log)
	}
}

// applyInstall applies the kustomize install (config/default).
func applyInstall(t *testing.T) {
	t.Helper()
	if _, stderr, err := kubectl(t, "", "apply", "--server-side", "-k", "../../config/default"); err != nil {
		t.Fatalf("apply -k config/default: %v\n%s", err, stderr)
	}
}

// rbacDenial is how the API server words a request RBAC refused.
var rbacDenial = regexp.MustCompile(`forbidden: User "[^"]*" cannot `)

// impersonatingKubeconfig writes a copy of the admin kubeconfig that acts as user.
func impersonatingKubeconfig(t *testing.T, user string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(env.kubeconfig)
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
