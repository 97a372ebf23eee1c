//go:build conformance

package conformance

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
)

// side is one controller on its own control plane: Ramp or the oracle.
type side struct {
	name       string // "ramp" or "upstream"
	kubeconfig string
	dyn        dynamic.Interface
	// metricsAddr is host:port of the controller's metrics endpoint.
	metricsAddr string
	proc        *exec.Cmd
}

var (
	gvrRollout     = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "rollouts"}
	gvrAnalysisRun = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "analysisruns"}
	gvrExperiment  = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "experiments"}
	gvrReplicaSet  = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
	gvrService     = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	gvrEvent       = schema.GroupVersionResource{Version: "v1", Resource: "events"}
	gvrPod         = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
)

func newSide(name, kubeconfig string) (*side, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	cfg.QPS, cfg.Burst = 100, 200
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &side{name: name, kubeconfig: kubeconfig, dyn: dyn}, nil
}

// start runs the side's controller in the background, its log in logDir.
func (s *side) start(bin, logDir string) error {
	var args []string
	s.metricsAddr = freeAddr()
	switch s.name {
	case "ramp":
		args = []string{"--kubeconfig", s.kubeconfig, "--leader-election-namespace", "default",
			"--health-probe-bind-address", freeAddr(), "--metrics-bind-address", s.metricsAddr}
	default:
		_, port, _ := net.SplitHostPort(s.metricsAddr)
		s.metricsAddr = "127.0.0.1:" + port // upstream listens on every address at that port
		args = []string{"--kubeconfig", s.kubeconfig, "--leader-elect=false",
			"--healthzPort", freePort(), "--metricsPort", port, "--loglevel", "info"}
	}
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	log, err := os.Create(filepath.Join(logDir, s.name+"-controller.log"))
	if err != nil {
		return err
	}
	s.proc = exec.Command(bin, args...)
	s.proc.Stdout, s.proc.Stderr = log, log
	return s.proc.Start()
}

func (s *side) stop() { stopProcess(s.proc) }

// stopProcess interrupts a process the harness started and kills it if it
// has not exited 10 s later.
func stopProcess(p *exec.Cmd) {
	if p == nil || p.Process == nil {
		return
	}
	_ = p.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = p.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.Process.Kill()
		<-done
	}
}

// run executes kubectl (or the upstream plugin) against the side's plane.
func (s *side) run(ctx context.Context, stdin string, bin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--kubeconfig", s.kubeconfig}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	err := cmd.Run()
	if err != nil {
		return out.String(), fmt.Errorf("%s %s: %w: %s", filepath.Base(bin), strings.Join(args, " "), err, out.String())
	}
	return out.String(), nil
}

func freePort() string {
	_, port, _ := net.SplitHostPort(freeAddr())
	return port
}

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "127.0.0.1:0"
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return "127.0.0.1:0"
	}
	return addr
}

// newNamespace creates the same fresh namespace (base plus a random suffix,
// so a namespace still terminating from an earlier run never collides) on
// both planes. Cleanup deletes it and waits until it is gone while the
// controllers still run, so their finalizers (routes restored on delete) are
// honoured instead of leaving it Terminating.
func newNamespace(t *testing.T, base string) string {
	t.Helper()
	ns := fmt.Sprintf("%s-%04x", base, rand.IntN(1<<16))
	for _, s := range []*side{rampSide, upstreamSide} {
		if _, err := s.run(context.Background(), "", cfg.kubectl, "create", "namespace", ns); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		var wg sync.WaitGroup
		for _, s := range []*side{rampSide, upstreamSide} {
			wg.Go(func() {
				if _, err := s.run(context.Background(), "", cfg.kubectl, "delete", "namespace", ns, "--wait=true", "--timeout=50s"); err != nil {
					t.Logf("%s: namespace %s not deleted: %v", s.name, ns, err)
				}
			})
		}
		wg.Wait()
	})
	return ns
}
