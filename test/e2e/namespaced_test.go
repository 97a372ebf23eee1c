//go:build e2e

package e2e

import (
	"context"
	"os"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestNamespacedInstallRunsCanary: the install (config/default) with the
// controller watching one namespace (--namespace), run as its ServiceAccount
// with POD_NAMESPACE=ramp-system as the Deployment sets it and no
// --leader-election-namespace: the Lease (ramp-controller-<instance id>)
// stays in ramp-system, where the shipped Role grants it, so the controller
// leads and takes a canary through a timed pause to Healthy, with no RBAC
// denial in its log.
//
// Not parallel: it applies the install, as TestInstallManifestsGrantLeastPrivilege does.
func TestNamespacedInstallRunsCanary(t *testing.T) {
	applyInstall(t)
	ns := namespace(t, "scoped")
	p, err := startControllerEnv([]string{"POD_NAMESPACE=ramp-system"},
		"--kubeconfig", impersonatingKubeconfig(t, serviceAccount), "--namespace", ns, "--instance-id", ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.stop)
	eventually(t, 60*time.Second, "namespaced controller is ready and leads", p.readyAndLeading)
	var lease coordinationv1.Lease
	if err := env.client.Get(context.Background(), client.ObjectKey{Namespace: "ramp-system", Name: "ramp-controller-" + ns}, &lease); err != nil {
		t.Fatalf("the Lease is not in ramp-system: %v", err)
	}

	apply(t, ns, rolloutYAML{name: "web", replicas: 2, instance: ns,
		canary: "steps:\n- setWeight: 50\n- pause: {duration: 1s}\n- setWeight: 100\n"}.String())
	old := waitHealthy(t, ns, "web", "", 2).Status.CurrentPodHash
	setImage(t, ns, "web", "app", "registry.example/app:v2")
	waitRollout(t, ns, "web", 90*time.Second, "updated and Healthy", func(ro *rampv1.Rollout) error {
		if err := newTemplate(old)(ro); err != nil {
			return err
		}
		return healthy(2, ro.Status.CurrentPodHash)(ro)
	})
	log, _ := os.ReadFile(p.logPath)
	if rbacDenial.Match(log) {
		t.Errorf("namespaced controller hit an RBAC denial:\n%s", log)
	}
}
