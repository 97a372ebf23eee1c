package cli

import (
	"bytes"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
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

// TestDashboardShownUser: the page's header names the identity the local
// dashboard acts as: the impersonated user when the kubeconfig or --as
// impersonates one, else the context's user entry.
func TestDashboardShownUser(t *testing.T) {
	raw := clientcmdapi.Config{CurrentContext: "dev", Contexts: map[string]*clientcmdapi.Context{"dev": {AuthInfo: "admin"}}}
	for _, c := range []struct {
		as   string
		raw  clientcmdapi.Config
		want string
	}{
		{"", raw, "admin"},
		{"viewer", raw, "viewer"},
		{"", clientcmdapi.Config{}, ""},
	} {
		cfg := &rest.Config{Impersonate: rest.ImpersonationConfig{UserName: c.as}}
		if got := shownUser(cfg, c.raw); got != c.want {
			t.Errorf("impersonating %q: shown %q, want %q", c.as, got, c.want)
		}
	}
}
