package plugin

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStartTimeoutFollowsContext: the plugin's handshake is awaited no
// longer than the measurement's context (go-plugin's default, used when
// the context has no deadline, is a minute).
func TestStartTimeoutFollowsContext(t *testing.T) {
	p := &process{path: "/bin/true"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if got := p.clientConfig(ctx).StartTimeout; got <= 0 || got > 2*time.Second {
		t.Errorf("StartTimeout %s, want at most the context's 2s", got)
	}
	if got := p.clientConfig(context.Background()).StartTimeout; got != 0 {
		t.Errorf("StartTimeout %s without a deadline, want go-plugin's default (0)", got)
	}
}

// orphanHelper is the environment variable that makes the test binary
// the "controller" of TestPluginDiesWithController.
const orphanHelper = "RAMP_PLUGIN_ORPHAN_HELPER"

// TestPluginDiesWithController: a controller killed with SIGKILL (no
// StopAll) leaves no plugin behind. A child process, this test binary,
// starts the fake plugin and prints its pid; the test kills the child and
// waits for the plugin to be gone.
func TestPluginDiesWithController(t *testing.T) {
	if bin := os.Getenv(orphanHelper); bin != "" {
		res, err := New("ramp/fake", bin, nil).Measure(context.Background(), fakeRequest(`{"phase":"Successful"}`))
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("pid", res.Metadata["pid"])
		select {} // until killed
	}
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPluginDiesWithController$")
	cmd.Env = append(os.Environ(), orphanHelper+"="+fakePlugin(t))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "pid ")))
	if err != nil || perr != nil || pid <= 0 {
		t.Fatalf("helper said %q (%v)", line, err)
	}
	defer func() { _ = syscall.Kill(pid, syscall.SIGKILL) }() // if the test fails
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for deadline := time.Now().Add(10 * time.Second); alive(pid); {
		if time.Now().After(deadline) {
			t.Fatalf("plugin %d still runs 10s after its controller was killed", pid)
		}
		time.Sleep(20 * time.Millisecond) // polling a condition with a deadline
	}
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}
