package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func sleepBinary(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep binary")
	}
	bin, _ = filepath.EvalSymlinks(bin)
	return bin
}

func TestStartStopByPid(t *testing.T) {
	d := Dir(t.TempDir())
	bin := sleepBinary(t)
	if err := d.Start("nap", bin, "300"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Stop("nap", time.Second) })
	if !d.Running("nap") || !d.Current("nap", bin, "300") {
		t.Fatal("started process is not reported running with its command line")
	}
	pidBefore, _ := os.ReadFile(filepath.Join(string(d), "pids", "nap.pid"))

	// Same command line: Start is a no-op.
	if err := d.Start("nap", bin, "300"); err != nil {
		t.Fatal(err)
	}
	pidAgain, _ := os.ReadFile(filepath.Join(string(d), "pids", "nap.pid"))
	if string(pidBefore) != string(pidAgain) {
		t.Error("Start restarted a process whose command line did not change")
	}

	// Changed command line: restarted.
	if d.Current("nap", bin, "301") {
		t.Error("Current ignores a changed command line")
	}
	if err := d.Start("nap", bin, "301"); err != nil {
		t.Fatal(err)
	}
	pidAfter, _ := os.ReadFile(filepath.Join(string(d), "pids", "nap.pid"))
	if string(pidAfter) == string(pidBefore) || !strings.HasSuffix(strings.Fields(string(pidAfter))[1], "sleep") {
		t.Errorf("changed command line did not restart: %q -> %q", pidBefore, pidAfter)
	}

	if err := d.Stop("nap", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if d.Running("nap") {
		t.Error("process still running after Stop")
	}
	if names := d.Names(); len(names) != 0 {
		t.Errorf("pid files left after Stop: %v", names)
	}
}

// A pid file whose pid now belongs to another binary must not be killed.
func TestStopIgnoresReusedPid(t *testing.T) {
	d := Dir(t.TempDir())
	other := exec.Command(sleepBinary(t), "300")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
	if err := os.MkdirAll(filepath.Join(string(d), "pids"), 0o755); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(string(d), "pids", "x.pid")
	line := []byte(strconv.Itoa(other.Process.Pid) + " /usr/bin/not-sleep 0")
	if err := os.WriteFile(pidFile, line, 0o644); err != nil {
		t.Fatal(err)
	}
	if d.Running("x") {
		t.Error("a pid running another binary is reported as ours")
	}
	if err := d.Stop("x", time.Second); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(other.Process.Pid, 0); err != nil {
		t.Errorf("unrelated process was stopped: %v", err)
	}
}

// A process that reads a file only at start is outdated once the file
// changes, and StartCmd restarts it; without inputs the recorded sum is the
// one Start has always written, so existing processes are not restarted.
func TestInputFileChangeRestarts(t *testing.T) {
	d := Dir(t.TempDir())
	conf := filepath.Join(t.TempDir(), "conf.yaml")
	if err := os.WriteFile(conf, []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := Cmd{Bin: sleepBinary(t), Args: []string{"300"}, Inputs: []string{conf}}
	if err := d.StartCmd("nap", cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Stop("nap", time.Second) })
	if !d.CurrentCmd("nap", cmd) {
		t.Fatal("started process is not current")
	}
	if d.Current("nap", cmd.Bin, cmd.Args...) {
		t.Error("Current ignores the input file the process was started with")
	}
	before, _ := os.ReadFile(filepath.Join(string(d), "pids", "nap.pid"))

	if err := os.WriteFile(conf, []byte("a: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d.CurrentCmd("nap", cmd) {
		t.Error("CurrentCmd ignores a changed input file")
	}
	if err := d.StartCmd("nap", cmd); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(string(d), "pids", "nap.pid"))
	if strings.Fields(string(after))[0] == strings.Fields(string(before))[0] {
		t.Error("changed input file did not restart the process")
	}

	plain, _ := Cmd{Args: []string{"300"}}.sum()
	if plain != "983bd614bb5afece" {
		t.Errorf("sum without inputs = %s, want the arguments-only sum 983bd614bb5afece", plain)
	}
}
