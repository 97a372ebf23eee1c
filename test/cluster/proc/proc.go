// Package proc starts long-running processes detached from the caller, with
// their pid recorded in a file, and stops them by that pid only (never by
// name), after checking the pid still runs the binary that was started.
package proc

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Dir holds pid files and logs of the processes it started.
type Dir string

func (d Dir) pidFile(name string) string { return filepath.Join(string(d), "pids", name+".pid") }

// Log is the path of the named process's log file.
func (d Dir) Log(name string) string { return filepath.Join(string(d), "logs", name+".log") }

// Running reports whether the named process is alive and still the binary it started.
func (d Dir) Running(name string) bool {
	pid, bin, _, err := d.read(name)
	return err == nil && alive(pid, bin)
}

// Current reports whether the named process is running with exactly this
// command line (so a changed configuration is noticed).
func (d Dir) Current(name, bin string, args ...string) bool {
	pid, runBin, sum, err := d.read(name)
	abs, _ := filepath.Abs(bin)
	return err == nil && alive(pid, runBin) && runBin == abs && sum == argsSum(args)
}

// Start launches bin with args in its own session, logging to Log(name).
// It does nothing if the process already runs with this command line, and
// restarts it if it runs with another one.
func (d Dir) Start(name, bin string, args ...string) error {
	if d.Current(name, bin, args...) {
		return nil
	}
	if err := d.Stop(name, 10*time.Second); err != nil {
		return err
	}
	for _, sub := range []string{"pids", "logs"} {
		if err := os.MkdirAll(filepath.Join(string(d), sub), 0o755); err != nil {
			return err
		}
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	logf, err := os.OpenFile(d.Log(name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(abs, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	go func() { _ = cmd.Wait() }() // reap if the caller stays alive
	return os.WriteFile(d.pidFile(name), []byte(fmt.Sprintf("%d %s %s\n", cmd.Process.Pid, abs, argsSum(args))), 0o644)
}

// Stop terminates the named process (SIGTERM, then SIGKILL after grace).
func (d Dir) Stop(name string, grace time.Duration) error {
	pid, bin, _, err := d.read(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer os.Remove(d.pidFile(name))
	if !alive(pid, bin) {
		return nil
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if !alive(pid, bin) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return syscall.Kill(pid, syscall.SIGKILL)
}

// Names lists the processes with pid files, in no particular order.
func (d Dir) Names() []string {
	files, _ := filepath.Glob(filepath.Join(string(d), "pids", "*.pid"))
	var out []string
	for _, f := range files {
		out = append(out, strings.TrimSuffix(filepath.Base(f), ".pid"))
	}
	return out
}

// read parses a pid file: "<pid> <binary> <sha256 of the arguments>".
func (d Dir) read(name string) (pid int, bin, sum string, err error) {
	b, err := os.ReadFile(d.pidFile(name))
	if err != nil {
		return 0, "", "", err
	}
	f := strings.Fields(string(b))
	if len(f) != 3 {
		return 0, "", "", fmt.Errorf("malformed pid file %s", d.pidFile(name))
	}
	pid, err = strconv.Atoi(f[0])
	return pid, f[1], f[2], err
}

func argsSum(args []string) string {
	h := sha256.Sum256([]byte(strings.Join(args, "\x00")))
	return hex.EncodeToString(h[:8])
}

// alive checks the pid exists, is not a zombie, and runs bin.
func alive(pid int, bin string) bool {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err == nil {
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			return false
		}
	}
	return strings.TrimSuffix(exe, " (deleted)") == bin
}
