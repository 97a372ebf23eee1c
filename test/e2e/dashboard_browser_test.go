//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDashboardBrowser: the real `ramp dashboard` on the local control plane,
// opened in headless chromium at 1280×800 and at a phone's 390×844 (the page
// laid out at that width: it has a meta viewport), answers
// the page with 200 and every response the page loads carries the security
// headers (read from the DevTools network events); the page logs no console
// error and violates no Content-Security-Policy (the browser harness fails the
// test otherwise); a screenshot of each size, light and dark, is saved.
func TestDashboardBrowser(t *testing.T) {
	t.Parallel()
	base := startDashboard(t)
	for _, vp := range []viewport{desktop, phone} {
		t.Run(vp.name, func(t *testing.T) {
			b := newBrowser(t, vp)
			// Nothing serves /favicon.ico yet, which the browser asks for on
			// its own. The front end is to ship an icon (a data: URI would
			// break the CSP): remove this then.
			b.allow(`/favicon\.ico:1\): Failed to load resource: the server responded with a status of 404`)
			resp := b.open(base + "/")
			if resp.Status != http.StatusOK {
				t.Fatalf("GET /: status %d %s", resp.Status, resp.StatusText)
			}
			b.waitJS("the page loaded", `document.readyState === "complete" && document.title.includes("Ramp")`)
			b.waitVisible("main") // the page's main landmark
			b.waitJS("the page fills the viewport", fmt.Sprintf("innerWidth === %d && innerHeight === %d", vp.width, vp.height))
			for _, r := range b.loaded(base) {
				assertSecurityHeaders(t, r.URL, func(name string) string { return header(r, name) })
			}
			for _, scheme := range []string{"light", "dark"} {
				b.colorScheme(scheme)
				path := b.screenshot("dashboard-" + vp.name + "-" + scheme)
				if png, err := os.ReadFile(path); err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
					t.Errorf("screenshot %q: not a PNG (%v)", path, err)
				}
			}
		})
	}
}

// assertSecurityHeaders checks what every dashboard answer must carry.
func assertSecurityHeaders(t *testing.T, url string, get func(string) string) {
	t.Helper()
	csp := get("Content-Security-Policy")
	for _, directive := range []string{"default-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"} {
		if !strings.Contains(csp, directive) {
			t.Errorf("%s: Content-Security-Policy %q lacks %q", url, csp, directive)
		}
	}
	for name, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"} {
		if got := get(name); got != want {
			t.Errorf("%s: %s = %q, want %q", url, name, got, want)
		}
	}
}

// TestBrowserReportsPageErrors: the harness itself catches what it must fail
// a test on: an inline script the page's CSP blocks, a load the CSP blocks,
// console.error and an uncaught exception. Without it, a dashboard test
// could pass over a page that is broken in the browser.
func TestBrowserReportsPageErrors(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'")
		if r.URL.Path == "/app.js" {
			w.Header().Set("Content-Type", "text/javascript")
			_, _ = w.Write([]byte(`console.error("app: bad"); throw new Error("app: boom");`))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<!doctype html><title>t</title><script>window.inline = 1</script>` +
			`<img src="http://192.0.2.1/blocked.png"><script src="/app.js"></script>`))
	}))
	defer srv.Close()
	b := newBrowser(t, desktop)
	b.open(srv.URL + "/")
	want := map[string]*regexp.Regexp{
		"inline script refused":    regexp.MustCompile(`(?i)inline script.*Content Security Policy`),
		"image refused":            regexp.MustCompile(`console error.*image .*blocked\.png.* Content Security Policy`),
		"load blocked on the wire": regexp.MustCompile(`load of a Image blocked \(csp\)`),
		"console.error":            regexp.MustCompile(`console error.*app: bad`),
		"uncaught exception":       regexp.MustCompile(`console exception.*app: boom`),
	}
	var seen []string
	eventually(t, browserWait, "the browser reports the page's errors", func() error {
		seen = append(seen, b.reported()...)
		for what, re := range want {
			if !slices.ContainsFunc(seen, re.MatchString) {
				return fmt.Errorf("no %s among %q", what, seen)
			}
		}
		return nil
	})
	t.Logf("reported: %q", seen)
	b.allow(`.`) // the same errors may be reported twice (console and network)
}
