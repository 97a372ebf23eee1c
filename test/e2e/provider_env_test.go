//go:build e2e

package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopProcess sends SIGTERM to p, then SIGKILL if exited is not closed
// after 10 s, and waits for it.
func stopProcess(p *os.Process, exited <-chan struct{}) {
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = p.Kill()
		<-exited
	}
}

// serverProcess is a server a test started: its command, its log, and a
// channel closed once it has exited.
type serverProcess struct {
	cmd    *exec.Cmd
	log    string
	exited chan struct{}
}

// startServer starts bin with args (env added to the test's environment),
// its output in logPath; the test's cleanup stops it (stopProcess), and the
// kernel does if the test binary dies first.
func startServer(t *testing.T, logPath, bin string, env []string, args ...string) *serverProcess {
	t.Helper()
	out, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	p := &serverProcess{cmd: exec.Command(bin, args...), log: logPath, exited: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = out, out
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := p.cmd.Start(); err != nil {
		_ = out.Close()
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() { _ = p.cmd.Wait(); _ = out.Close(); close(p.exited) }()
	t.Cleanup(func() { stopProcess(p.cmd.Process, p.exited) })
	return p
}

// failIfExited fails the test at once, with the end of its log, if the
// server has exited (a readiness wait need not run to its deadline).
func (p *serverProcess) failIfExited(t *testing.T) {
	t.Helper()
	select {
	case <-p.exited:
		t.Fatalf("%s exited; log ends:\n%s", filepath.Base(p.cmd.Path), logTail(p.log))
	default:
	}
}

// freePorts returns n distinct loopback ports the kernel just handed out
// (all held open together, so none is handed out twice).
func freePorts(t *testing.T, n int) []string {
	t.Helper()
	ports := make([]string, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = l.Close() }()
		addr := l.Addr().String()
		ports[i] = addr[strings.LastIndex(addr, ":")+1:]
	}
	return ports
}

// templateWithRuns is an AnalysisTemplate named name taking the argument
// arg, with metrics (its "  metrics:" block), and per value an AnalysisRun
// of the same metrics named for the value, with arg set to it.
func templateWithRuns(name, arg, metrics string, values ...string) string {
	out := fmt.Sprintf("apiVersion: argoproj.io/v1alpha1\nkind: AnalysisTemplate\nmetadata: {name: %s}\nspec:\n  args:\n  - name: %s\n%s", name, arg, metrics)
	for _, v := range values {
		out += fmt.Sprintf("---\napiVersion: argoproj.io/v1alpha1\nkind: AnalysisRun\nmetadata: {name: %s}\nspec:\n  args:\n  - {name: %s, value: %s}\n%s", v, arg, v, metrics)
	}
	return out
}
