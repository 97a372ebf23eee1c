package cli

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestMainExitCodeOfWrappedError: an ExitError wrapped by a caller's
// fmt.Errorf("...: %w") still sets the exit code (errors.As, not a type
// assertion, which saw only the wrapper and exited 1).
func TestMainExitCodeOfWrappedError(t *testing.T) {
	saved := commands
	t.Cleanup(func() { commands = saved })
	register(func(*env) *cobra.Command {
		return &cobra.Command{Use: "fail", RunE: func(*cobra.Command, []string) error {
			return fmt.Errorf("wrapped: %w", &ExitError{Code: 3, Err: fmt.Errorf("three")})
		}}
	})
	var out, errOut bytes.Buffer
	if code := Main([]string{"ramp", "fail"}, Streams{Out: &out, Err: &errOut}); code != 3 {
		t.Errorf("exit code %d, want 3", code)
	}
	if !strings.Contains(errOut.String(), "wrapped: three") {
		t.Errorf("stderr %q, want the error", errOut.String())
	}
}

// TestPluginUsageNamesKubectlRamp: invoked as the kubectl plugin, the help
// of every command says "kubectl ramp <command>" (cobra would take Use's
// first word and say "kubectl dashboard"); invoked as ramp, "ramp <command>".
func TestPluginUsageNamesKubectlRamp(t *testing.T) {
	for prog, want := range map[string]string{"/usr/local/bin/kubectl-ramp": "kubectl ramp dashboard [flags]", "bin/ramp": "ramp dashboard [flags]"} {
		root := NewRoot(prog, Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
		cmd, _, err := root.Find([]string{"dashboard"})
		if err != nil {
			t.Fatal(err)
		}
		if got := cmd.UseLine(); got != want {
			t.Errorf("invoked as %s: usage %q, want %q", prog, got, want)
		}
	}
}
