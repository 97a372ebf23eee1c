package provider

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

type secretsOf map[string]map[string][]byte

func (s secretsOf) HTTPPolicy() HTTPPolicy      { return HTTPPolicy{} }
func (s secretsOf) CredentialNamespace() string { return "ctl" }
func (s secretsOf) Secret(_ context.Context, ns, name string) (map[string][]byte, error) {
	if d, ok := s[ns+"/"+name]; ok {
		return d, nil
	}
	return nil, errors.New("secret " + ns + "/" + name + " not found")
}

// TestCredentials: missing keys (absent or blank) are all named with the
// Secret, never a value; values come back trimmed and sorted for a
// redactor; no cluster is an error naming the Secret.
func TestCredentials(t *testing.T) {
	deps := secretsOf{"ctl/datadog": {"address": []byte("https://api.example\n"), "api-key": []byte("k-123"), "app-key": []byte("  ")}}
	c, err := ReadCredentials(context.Background(), deps, "ctl", "datadog")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Require("address", "api-key", "app-key", "site"); err == nil || err.Error() != "secret ctl/datadog has no app-key, site" {
		t.Errorf("Require: %v", err)
	}
	v, err := c.Require("address", "api-key")
	if err != nil || !slices.Equal(v, []string{"https://api.example", "k-123"}) {
		t.Errorf("Require = %q, %v", v, err)
	}
	if got := c.Values(); !slices.Equal(got, []string{"https://api.example", "k-123"}) {
		t.Errorf("Values = %q", got)
	}
	if _, err := ReadCredentials(context.Background(), deps, "ctl", "other"); err == nil || !strings.Contains(err.Error(), "ctl/other") {
		t.Errorf("missing Secret: %v", err)
	}
	if _, err := ReadCredentials(context.Background(), nil, "ctl", "x"); err == nil || !strings.Contains(err.Error(), "ctl/x") {
		t.Errorf("no cluster: %v", err)
	}
}

// TestValuesBut: a plain endpoint URL is left out (with or without a
// trailing '/'); one with a password or a query string stays, and its
// password and long query values are added (short ones are not keys).
func TestValuesBut(t *testing.T) {
	proxy, keyed := "https://u:pw-456@proxy.example/graphql", "https://dd.example/?api_key=0123456789abcdef&v=1"
	c := Credentials{Data: map[string][]byte{"address": []byte("https://api.example/"), "k": []byte("k-123"), "nerdgraph": []byte(proxy), "other": []byte(keyed)}}
	got := c.ValuesBut("https://api.example", proxy, keyed)
	if want := []string{"0123456789abcdef", keyed, proxy, "k-123", "pw-456"}; !slices.Equal(got, want) {
		t.Errorf("ValuesBut = %q, want %q", got, want)
	}
}
