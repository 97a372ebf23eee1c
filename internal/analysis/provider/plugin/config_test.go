package plugin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseConfig: upstream's documented configuration parses; each
// mistake is an error naming the key, the item and the field.
func TestParseConfig(t *testing.T) {
	_, err := ParseConfig(map[string]string{ConfigKey: `
- name: "argoproj-labs/sample-prometheus"
  location: "https://github.com/argoproj-labs/sample-rollouts-metric-plugin/releases/download/v0.0.3/metric-plugin-linux-amd64"
  sha256: "08f588b1c799a37bbe8d0fc74cc1b1492dd70b2c"
  args: ["-l", "2"]
`})
	if err == nil || !strings.Contains(err.Error(), "metricProviderPlugins[0].sha256 of argoproj-labs/sample-prometheus is not 64 hex digits") {
		t.Errorf("a 40-digit sha256: %v", err)
	}
	items, err := ParseConfig(map[string]string{ConfigKey: `
- name: "argoproj-labs/sample-prometheus"
  location: "file://./my-custom-plugin"
  args: ["-l", "2"]
- name: argoproj/other
  location: https://example.com/p
  sha256: ` + strings.Repeat("aB", 32) + `
`, "trafficRouterPlugins": "- {name: x/y, location: file://z}"})
	if err != nil || len(items) != 2 || items[0].Location != "file://./my-custom-plugin" || strings.Join(items[0].Args, " ") != "-l 2" {
		t.Fatalf("items %+v, %v", items, err)
	}
	if items, err := ParseConfig(map[string]string{"other": "x"}); err != nil || items != nil {
		t.Errorf("no key: %v, %v", items, err)
	}
	for name, tc := range map[string]struct{ yaml, want string }{
		"name":        {`[{name: sample, location: "file:///p"}]`, `metricProviderPlugins[0].name "sample" is not <namespace>/<name>`},
		"dot-dot":     {`[{name: a/.., location: "file:///p"}]`, `metricProviderPlugins[0].name "a/.." is not <namespace>/<name>`},
		"dot":         {`[{name: a/., location: "file:///p"}]`, `metricProviderPlugins[0].name "a/." is not <namespace>/<name>`},
		"twice":       {`[{name: a/b, location: "file:///p"}, {name: a/b, location: "file:///q"}]`, `metricProviderPlugins[1].name "a/b" is configured twice`},
		"scheme":      {`[{name: a/b, location: "s3://bucket/p"}]`, `metricProviderPlugins[0].location of a/b: "s3://bucket/p": the scheme must be file, http or https`},
		"no file":     {`[{name: a/b, location: "file://"}]`, `names no file`},
		"headersFrom": {`[{name: a/b, location: "https://h/p", headersFrom: [{secretRef: {name: s}}]}]`, `headersFrom of a/b is not supported`},
		"unknown":     {`[{name: a/b, location: "file:///p", locaton: x}]`, `unknown field "locaton"`},
		"not a list":  {`name: a/b`, `metricProviderPlugins:`},
	} {
		if _, err := ParseConfig(map[string]string{ConfigKey: tc.yaml}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
	}
}

// TestInstall: a file:// or http(s) binary is installed at
// <dir>/<namespace>/<name>, mode 0700; a SHA-256 mismatch, a missing file,
// a directory and a failed download are errors leaving nothing installed.
func TestInstall(t *testing.T) {
	src := filepath.Join(t.TempDir(), "bin")
	body := []byte("#!/bin/sh\necho plugin\n")
	if err := os.WriteFile(src, body, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	good := hex.EncodeToString(sum[:])
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/p" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(body)
	}))
	defer srv.Close()

	dir := t.TempDir()
	for _, loc := range []string{"file://" + src, srv.URL + "/p"} {
		path, err := Install(context.Background(), Item{Name: "ns/name", Location: loc, Sha256: strings.ToUpper(good)}, dir, srv.Client())
		if err != nil {
			t.Fatalf("%s: %v", loc, err)
		}
		st, err := os.Stat(path)
		if path != filepath.Join(dir, "ns", "name") || err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: installed at %s, %v, %v", loc, path, st.Mode(), err)
		}
	}
	if _, err := Install(context.Background(), Item{Name: "ns/name", Location: "file://" + src}, dir, nil); err != nil {
		t.Errorf("no sha256: %v", err)
	}

	for name, tc := range map[string]struct {
		item Item
		want string
	}{
		"sha256":    {Item{Name: "ns/bad", Location: "file://" + src, Sha256: strings.Repeat("0", 64)}, "sha256 of file://" + src + " is " + good + ", the configuration says 000"},
		"missing":   {Item{Name: "ns/bad", Location: "file:///nonexistent/p"}, "no such file"},
		"directory": {Item{Name: "ns/bad", Location: "file://" + filepath.Dir(src)}, "is not a regular file"},
		"404":       {Item{Name: "ns/bad", Location: srv.URL + "/missing"}, "404 Not Found"},
		"name":      {Item{Name: "bad", Location: "file://" + src}, `plugin name "bad"`},
		"traversal": {Item{Name: "ns/..", Location: "file://" + src}, `plugin name "ns/.."`},
	} {
		_, err := Install(context.Background(), tc.item, dir, srv.Client())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ns", "bad")); !os.IsNotExist(err) {
		t.Errorf("a refused binary is installed: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "ns", ".install-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestLocationCredentialsHidden: the user information and query of a
// download URL (credentials, signed tokens) appear in no error, whether the
// configuration is refused, the download fails or the checksum differs.
func TestLocationCredentialsHidden(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/p" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte("binary"))
	}))
	defer srv.Close()
	withCreds := func(path string) string {
		return strings.Replace(srv.URL, "http://", "http://u:s3cret@", 1) + path + "?X-Amz-Signature=t0ken#frag"
	}
	var errs []error
	for _, it := range []Item{
		{Name: "ns/a", Location: withCreds("/missing")},
		{Name: "ns/a", Location: withCreds("/p"), Sha256: strings.Repeat("0", 64)},
		{Name: "ns/a", Location: "s3://key:s3cret@bucket/p?sig=t0ken"},
		{Name: "ns/a", Location: "https://u:s3cret@[::1/p?t0ken"},
	} {
		_, err := Install(context.Background(), it, t.TempDir(), srv.Client())
		errs = append(errs, err)
	}
	_, err := ParseConfig(map[string]string{ConfigKey: `[{name: a/b, location: "ftp://u:s3cret@h/p?t0ken"}]`})
	errs = append(errs, err)
	for i, err := range errs {
		if err == nil {
			t.Fatalf("case %d: no error", i)
		}
		if msg := err.Error(); strings.Contains(msg, "s3cret") || strings.Contains(msg, "t0ken") {
			t.Errorf("case %d: error shows a credential: %s", i, msg)
		}
	}
	if msg := errs[0].Error(); !strings.Contains(msg, "http://redacted@127.0.0.1") || !strings.Contains(msg, "/missing?redacted: 404") {
		t.Errorf("the download error should still name the URL: %s", msg)
	}
}
