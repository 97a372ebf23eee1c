//go:build e2e

package e2e

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
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

// startController starts the ramp-controller binary against the local
// control plane, electing its leader through a Lease in leaseNS, with its
// probe and metrics endpoints on free loopback ports.
func startController(leaseNS string, extraArgs ...string) (*controllerProcess, error) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: leaseNS}}
	if err := env.client.Create(context.Background(), ns); client.IgnoreAlreadyExists(err) != nil {
		return nil, err
	}
	return startControllerEnv(nil, append([]string{"--leader-election-namespace", leaseNS}, extraArgs...)...)
}

// startControllerEnv starts the ramp-controller binary with environ added to
// this process's environment and args after the suite's own flags (later
// flags win).
func startControllerEnv(environ []string, args ...string) (*controllerProcess, error) {
	bin := os.Getenv("RAMP_CONTROLLER_BIN")
	if bin == "" {
		return nil, fmt.Errorf("RAMP_CONTROLLER_BIN must be set (make test sets it)")
	}
	probe, err := freePort()
	if err != nil {
		return nil, err
	}
	metrics, err := freePort()
	if err != nil {
		return nil, err
	}
	p := &controllerProcess{probeAddr: probe, metrics: metrics}
	logf, err := os.CreateTemp("", "ramp-e2e-controller-*.log")
	if err != nil {
		return nil, err
	}
	p.logPath = logf.Name()
	p.cmd = exec.Command(bin, "--kubeconfig", env.kubeconfig,
		"--leader-election-lease-duration", "15s",
		"--health-probe-bind-address", p.probeAddr,
		"--metrics-bind-address", p.metrics,
		"--log-format", "json", "--log-level", cmp.Or(os.Getenv("RAMP_E2E_LOG_LEVEL"), "info"))
	p.cmd.Args = append(p.cmd.Args, args...)
	p.cmd.Env = append(os.Environ(), environ...)
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "e2e: ramp-controller pid %d (%s), log %s\n", p.cmd.Process.Pid, strings.Join(args, " "), p.logPath)
	return p, nil
}

// freePort returns a loopback address with a port the kernel just handed out.
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return "", err
	}
	return addr, nil
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
	defer func() { _ = resp.Body.Close() }() // read to the end or failed already: a close error changes nothing
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// isLeader reads the controller's leader_election_master_status gauge (of
// its Lease, whatever its name).
func (p *controllerProcess) isLeader() (bool, error) {
	byLease, err := metricSum(p, "leader_election_master_status", nil, "name")
	if err != nil {
		return false, err
	}
	for _, v := range byLease {
		if v == 1 {
			return true, nil
		}
	}
	return false, nil
}

func (p *controllerProcess) ready() error {
	code, body, err := httpGet("http://" + p.probeAddr + "/readyz")
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("status %d: %s", code, body)
	}
	return nil
}

// readyAndLeading: the controller reports ready and holds the Lease.
func (p *controllerProcess) readyAndLeading() error {
	if err := p.ready(); err != nil {
		return err
	}
	ok, err := p.isLeader()
	if err != nil {
		return fmt.Errorf("not leading: %w", err)
	}
	if !ok {
		return errors.New("not leading")
	}
	return nil
}

// TestLeaderFailover: of two replicas sharing a Lease exactly one leads and
// both report ready; when the leader stops it releases the Lease and the
// standby takes over without waiting for the lease to expire.
func TestLeaderFailover(t *testing.T) {
	t.Parallel()
	leaseNS := namespace(t, "lease")
	var replicas [2]*controllerProcess
	for i := range replicas {
		p, err := startController(leaseNS)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.stop)
		replicas[i] = p
	}
	var leader, standby *controllerProcess
	eventually(t, 60*time.Second, "both replicas ready and exactly one leading", func() error {
		leading := 0
		for _, p := range replicas {
			if err := p.ready(); err != nil {
				return err
			}
			ok, err := p.isLeader()
			if err != nil {
				return err
			}
			if ok {
				leading++
				leader = p
			} else {
				standby = p
			}
		}
		if leading != 1 {
			return fmt.Errorf("%d leaders", leading)
		}
		return nil
	})
	var lease coordinationv1.Lease
	key := client.ObjectKey{Namespace: leaseNS, Name: "ramp-controller"}
	if err := env.client.Get(context.Background(), key, &lease); err != nil {
		t.Fatal(err)
	}
	before := *lease.Spec.HolderIdentity

	stopped := time.Now()
	leader.stop()
	eventually(t, 30*time.Second, "standby takes the lease", func() error {
		ok, err := standby.isLeader()
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("standby is not leading yet")
		}
		return nil
	})
	takeover := time.Since(stopped)
	if err := env.client.Get(context.Background(), key, &lease); err != nil {
		t.Fatal(err)
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == before {
		t.Errorf("lease holder did not change from %q", before)
	}
	// The lease lasts 15s: a takeover well inside it shows the leader released it.
	if takeover >= 15*time.Second {
		t.Errorf("takeover took %s: the stopping leader did not release the lease", takeover)
	}
	t.Logf("failover: standby leading %s after the leader was stopped", takeover.Round(10*time.Millisecond))
}

// TestControllerTakesLeaseAndReportsReady: the controller binary starts
// against the real API server, wins the ramp-controller Lease, reports ready
// on /readyz and serves Prometheus metrics.
func TestControllerTakesLeaseAndReportsReady(t *testing.T) {
	t.Parallel()
	eventually(t, 60*time.Second, "/readyz returns 200", env.controller.ready)
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
