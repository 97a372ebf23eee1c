//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const leaseNamespace = "ramp-e2e-system"

// controllerProcess is the real ramp-controller binary started for the suite.
type controllerProcess struct {
	cmd       *exec.Cmd
	probeAddr string
	metrics   string
	logPath   string
}

func startController() (*controllerProcess, error) {
	bin := os.Getenv("RAMP_CONTROLLER_BIN")
	base, err := strconv.Atoi(os.Getenv("RAMP_E2E_PORT_BASE"))
	if bin == "" || err != nil {
		return nil, fmt.Errorf("RAMP_CONTROLLER_BIN and RAMP_E2E_PORT_BASE must be set (make test sets them)")
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: leaseNamespace}}
	if err := env.client.Create(context.Background(), ns); client.IgnoreAlreadyExists(err) != nil {
		return nil, err
	}
	p := &controllerProcess{
		probeAddr: fmt.Sprintf("127.0.0.1:%d", base),
		metrics:   fmt.Sprintf("127.0.0.1:%d", base+1),
		logPath:   filepath.Join(os.TempDir(), fmt.Sprintf("ramp-e2e-controller-%d.log", os.Getpid())),
	}
	logf, err := os.Create(p.logPath)
	if err != nil {
		return nil, err
	}
	p.cmd = exec.Command(bin, "--kubeconfig", env.kubeconfig,
		"--leader-election-namespace", leaseNamespace,
		"--health-probe-bind-address", p.probeAddr,
		"--metrics-bind-address", p.metrics,
		"--log-format", "json")
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "e2e: ramp-controller pid %d, log %s\n", p.cmd.Process.Pid, p.logPath)
	return p, nil
}

func (p *controllerProcess) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
	}
}

func httpGet(url string) (int, string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// TestControllerTakesLeaseAndReportsReady: the controller binary starts
// against the real API server, wins the ramp-controller Lease, reports ready
// on /readyz and serves Prometheus metrics.
func TestControllerTakesLeaseAndReportsReady(t *testing.T) {
	t.Parallel()
	eventually(t, 60*time.Second, "/readyz returns 200", func() error {
		code, body, err := httpGet("http://" + env.controller.probeAddr + "/readyz")
		if err != nil {
			return err
		}
		if code != http.StatusOK {
			return fmt.Errorf("status %d: %s", code, body)
		}
		return nil
	})
	var lease coordinationv1.Lease
	eventually(t, 60*time.Second, "Lease ramp-controller is held", func() error {
		if err := env.client.Get(context.Background(), client.ObjectKey{Namespace: leaseNamespace, Name: "ramp-controller"}, &lease); err != nil {
			return err
		}
		if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
			return fmt.Errorf("no holder")
		}
		return nil
	})
	host, _ := os.Hostname()
	if !strings.HasPrefix(*lease.Spec.HolderIdentity, host) {
		t.Errorf("lease holder %q is not this machine's controller (%s_...)", *lease.Spec.HolderIdentity, host)
	}
	code, body, err := httpGet("http://" + env.controller.metrics + "/metrics")
	if err != nil || code != http.StatusOK {
		t.Fatalf("/metrics: %d %v", code, err)
	}
	if !strings.Contains(body, `controller_runtime_reconcile_total{controller="rollout"`) {
		t.Errorf("/metrics does not report the rollout controller's reconciles:\n%.500s", body)
	}
	code, _, err = httpGet("http://" + env.controller.probeAddr + "/healthz")
	if err != nil || code != http.StatusOK {
		t.Errorf("/healthz: %d %v", code, err)
	}
}
