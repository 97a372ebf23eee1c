package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Backoff is how long a supervisor waits before restarting a process that
// exited: Initial after the first exit, doubling up to Max, back to Initial
// once the process has run for Reset.
type Backoff struct {
	Initial, Max, Reset time.Duration
}

// KubeletBackoff is kubelet's restart back-off for a crashing container,
// scaled as the local control plane uses it: 1 s doubling to 30 s, reset
// after 60 s of running.
var KubeletBackoff = Backoff{Initial: time.Second, Max: 30 * time.Second, Reset: 60 * time.Second}

// ChildPid is the path of the file holding the pid of the process the
// supervisor of name runs now (not a .pid file: Names and Down skip it, as
// stopping the supervisor stops the child).
func (d Dir) ChildPid(name string) string { return filepath.Join(string(d), "pids", name+".child") }

// Supervise runs c in the foreground and restarts it, after b's back-off,
// whenever it exits, until ctx ends: then it sends the child SIGTERM (SIGKILL
// after grace), waits for it and returns. Each start and exit is written to
// log with the exit status; the child writes its output to log too. The
// child's pid is kept in ChildPid(name), and the child is killed if the
// supervisor dies (Pdeathsig), so no child outlives its supervisor.
func (d Dir) Supervise(ctx context.Context, name string, c Cmd, b Backoff, grace time.Duration, log *os.File) error {
	abs, err := filepath.Abs(c.Bin)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(string(d), "pids"), 0o755); err != nil {
		return err
	}
	defer func() { _ = os.Remove(d.ChildPid(name)) }()
	delay := b.Initial
	for restarts := 0; ; restarts++ {
		started := time.Now()
		status := d.runOnce(ctx, name, abs, c.Args, grace, log)
		ran := time.Since(started)
		if ctx.Err() != nil {
			logf(log, "%s stopped (%s) after %s; not restarted", name, status, ran.Round(time.Millisecond))
			return nil
		}
		if ran >= b.Reset {
			delay = b.Initial
		}
		logf(log, "%s exited (%s) after %s; restart %d in %s", name, status, ran.Round(time.Millisecond), restarts+1, delay)
		select {
		case <-ctx.Done():
			logf(log, "%s stopped during back-off; not restarted", name)
			return nil
		case <-time.After(delay):
		}
		delay = min(2*delay, b.Max)
	}
}

// runOnce starts the child and waits for it to exit, or for ctx to end and
// then stops it. It returns the exit status as text.
func (d Dir) runOnce(ctx context.Context, name, bin string, args []string, grace time.Duration, log *os.File) string {
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return "did not start: " + err.Error()
	}
	_ = os.WriteFile(d.ChildPid(name), []byte(fmt.Sprintf("%d %s\n", cmd.Process.Pid, bin)), 0o644)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err = <-done:
		case <-time.After(grace):
			_ = cmd.Process.Kill()
			err = <-done
		}
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return "exit status 0"
	case errors.As(err, &exit):
		return exit.String()
	default:
		return err.Error()
	}
}

func logf(w io.Writer, format string, args ...any) {
	_, _ = fmt.Fprintf(w, "%s ramp-cluster supervise: %s\n", time.Now().Format(time.RFC3339), fmt.Sprintf(format, args...))
}
