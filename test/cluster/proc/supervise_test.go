package proc

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// superviseEnv, when set, makes the test binary a supervisor (see TestMain):
// its arguments are the name and the command to supervise, the value the Dir.
const superviseEnv = "RAMP_PROC_TEST_SUPERVISE"

func TestMain(m *testing.M) {
	if dir := os.Getenv(superviseEnv); dir != "" {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		child := Cmd{Bin: os.Args[2], Args: os.Args[3:]}
		if err := Dir(dir).Supervise(ctx, os.Args[1], child, Backoff{Initial: 10 * time.Millisecond, Max: 40 * time.Millisecond, Reset: time.Hour}, 5*time.Second, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	os.Exit(m.Run())
}

// waitFor polls cond every 10 ms until it holds, failing after timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(timeout); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not true after %s", what, timeout)
		}
	}
}

// childPid reads the supervised child's pid, 0 if there is none running.
func childPid(d Dir, name string) int {
	b, err := os.ReadFile(d.ChildPid(name))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0
	}
	pid, _ := strconv.Atoi(f[0])
	if !alive(pid, f[1]) {
		return 0
	}
	return pid
}

// TestSuperviseRestartsKilledChild: a child killed with SIGKILL is started
// again after the back-off, with the exit status logged; ending the
// supervisor's context (a deliberate stop) stops the child and restarts
// nothing.
func TestSuperviseRestartsKilledChild(t *testing.T) {
	d := Dir(t.TempDir())
	logPath := filepath.Join(string(d), "nap.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = logFile.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- d.Supervise(ctx, "nap", Cmd{Bin: sleepBinary(t), Args: []string{"300"}},
			Backoff{Initial: 10 * time.Millisecond, Max: 40 * time.Millisecond, Reset: time.Hour}, 5*time.Second, logFile)
	}()
	var first int
	waitFor(t, 10*time.Second, "child started", func() bool { first = childPid(d, "nap"); return first != 0 })
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var second int
	waitFor(t, 10*time.Second, "killed child restarted", func() bool {
		second = childPid(d, "nap")
		return second != 0 && second != first
	})

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("supervisor did not return after its context ended")
	}
	if err := syscall.Kill(second, 0); err == nil {
		t.Errorf("child %d still runs after the supervisor stopped", second)
	}
	if _, err := os.Stat(d.ChildPid("nap")); !os.IsNotExist(err) {
		t.Errorf("child pid file left after a stop: %v", err)
	}
	log, _ := os.ReadFile(logPath)
	for _, want := range []string{"nap exited (signal: killed)", "restart 1 in 10ms", "nap stopped (signal: terminated)", "not restarted"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("supervisor log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(string(log), "restart 2") {
		t.Errorf("a deliberately stopped child was restarted:\n%s", log)
	}
}

// TestStopEndsSupervisorAndChild: a supervisor started in the background
// (as `ramp-cluster start` does) is what the pid file records; Stop ends
// it, and it stops its child rather than restarting it.
func TestStopEndsSupervisorAndChild(t *testing.T) {
	d := Dir(t.TempDir())
	t.Setenv(superviseEnv, string(d)) // inherited by the supervisor StartCmd starts
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.StartCmd("svc", Cmd{Bin: self, Args: []string{"nap", sleepBinary(t), "300"}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Stop("svc", time.Second) })
	var child int
	waitFor(t, 10*time.Second, "supervised child started", func() bool { child = childPid(d, "nap"); return child != 0 })
	if !d.Running("svc") {
		t.Fatal("the supervisor is not the running process of the pid file")
	}
	if err := d.Stop("svc", 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if d.Running("svc") {
		t.Error("supervisor still running after Stop")
	}
	if err := syscall.Kill(child, 0); err == nil {
		t.Errorf("child %d still runs after its supervisor was stopped", child)
	}
	if pid := childPid(d, "nap"); pid != 0 {
		t.Errorf("a new child %d was started after Stop", pid)
	}
	log, _ := os.ReadFile(d.Log("svc"))
	if !strings.Contains(string(log), "nap stopped (signal: terminated)") {
		t.Errorf("supervisor log does not record the stop:\n%s", log)
	}
}
