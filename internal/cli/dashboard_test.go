package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestDashboardCommand: ramp dashboard has the flags and defaults
// (loopback, read-only, local identity), and refuses a non-loopback address
// without --in-cluster-auth before touching any cluster.
func TestDashboardCommand(t *testing.T) {
	root := NewRoot("ramp", Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	cmd, _, err := root.Find([]string{"dashboard"})
	if err != nil {
		t.Fatal(err)
	}
	for flag, def := range map[string]string{"address": "127.0.0.1:3100", "enable-actions": "false", "in-cluster-auth": "false"} {
		if f := cmd.Flags().Lookup(flag); f == nil || f.DefValue != def {
			t.Errorf("--%s: %+v, want default %q", flag, f, def)
		}
	}
	var errOut bytes.Buffer
	code := Main([]string{"ramp", "dashboard", "--address", "0.0.0.0:3100", "--kubeconfig", "/nonexistent"}, Streams{Out: &bytes.Buffer{}, Err: &errOut})
	if code != 1 || !strings.Contains(errOut.String(), "not a loopback address") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
	if c, _, err := root.Find([]string{"resume"}); err != nil || c.Name() != "resume" {
		t.Errorf("resume: %v", err)
	}
}
