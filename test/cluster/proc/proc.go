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

// Cmd identifies a started process: its binary, its arguments and the
// files it reads only when it starts (a configuration file). Changing any of
// them, including the content of an input file, makes the process outdated.
type Cmd struct {
	Bin    string
	Args   []string
	Inputs []string
}

// Current reports whether the named process is running with exactly this
// command line (so a changed configuration is noticed).
func (d Dir) Current(name, bin string, args ...string) bool {
	return d.CurrentCmd(name, Cmd{Bin: bin, Args: args})
}

// CurrentCmd reports whether the named process is running as cmd, with its
// input files unchanged since it started.
func (d Dir) CurrentCmd(name string, cmd Cmd) bool {
	pid, runBin, sum, err := d.read(name)
	if err != nil || !alive(pid, runBin) {
		return false
	}
	abs, _ := filepath.Abs(cmd.Bin)
	want, err := cmd.sum()
	return err == nil && runBin == abs && sum == want
}

// Start launches bin with args in its own session, logging to Log(name).
// It does nothing if the process already runs with this command line, and
// restarts it if it runs with another one.
func (d Dir) Start(name, bin string, args ...string) error {
	return d.StartCmd(name, Cmd{Bin: bin, Args: args})
}

// StartCmd is Start for a Cmd: it also restarts the process when one of its
// input files changed.
func (d Dir) StartCmd(name string, c Cmd) error {
	if d.CurrentCmd(name, c) {
		return nil
	}
	sum, err := c.sum()
	if err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	if err := d.Stop(name, 10*time.Second); err != nil {
		return err
	}
	for _, sub := range []string{"pids", "logs"} {
		if err := os.MkdirAll(filepath.Join(string(d), sub), 0o755); err != nil {
			return err
		}
	}
	abs, err := filepath.Abs(c.Bin)
	if err != nil {
		return err
	}
	logf, err := os.OpenFile(d.Log(name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer func() { _ = logf.Close() }() // the child has its own descriptor
	cmd := exec.Command(abs, c.Args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	go func() { _ = cmd.Wait() }() // reap if the caller stays alive
	return os.WriteFile(d.pidFile(name), []byte(fmt.Sprintf("%d %s %s\n", cmd.Process.Pid, abs, sum)), 0o644)
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
	defer func() { _ = os.Remove(d.pidFile(name)) }() // a stale pid file is harmless: alive checks the pid still runs that binary
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

// sum hashes the arguments and, in order, each input file's name and
// content. Without inputs it is the hash of the arguments alone, as recorded
// by earlier versions, so adding inputs to one process restarts only that one.
func (c Cmd) sum() (string, error) {
	h := sha256.New()
	h.Write([]byte(strings.Join(c.Args, "\x00")))
	for _, f := range c.Inputs {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("input file: %w", err)
		}
		_, _ = fmt.Fprintf(h, "\x00\x00%s\x00%d\x00", f, len(b)) // a hash.Hash never returns a write error
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)[:8]), nil
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
