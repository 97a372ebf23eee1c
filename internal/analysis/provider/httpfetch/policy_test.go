package httpfetch

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// seen starts a server that answers 200 "{}" and sends each request's
// headers on the returned channel.
func seen(t *testing.T) (*httptest.Server, <-chan http.Header) {
	t.Helper()
	got := make(chan http.Header, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		_, _ = w.Write([]byte("{}"))
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

// redirector starts a server redirecting every request to target (307, so
// a body follows too).
func redirector(t *testing.T, target string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.RedirectHandler(target, http.StatusTemporaryRedirect))
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, c *http.Client, url string, header http.Header) (int, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		r.Header[k] = v
	}
	status, _, err := Do(ctx, c, r, MaxResponseBytes)
	return status, err
}

// TestRedirectToAnotherHostDropsMetricHeaders: a redirect to another
// host:port carries none of the headers the metric set (Go's own policy
// forwards X-Api-Key); one to the same host keeps them.
func TestRedirectToAnotherHostDropsMetricHeaders(t *testing.T) {
	other, otherGot := seen(t)
	c := NewClients(nil, provider.HTTPPolicy{}).For(false)
	header := http.Header{"X-Api-Key": {"s3cr3t"}, "Authorization": {"Bearer s3cr3t"}, "X-Tenant": {"a"}}
	if _, err := get(t, c, redirector(t, other.URL+"/elsewhere").URL, header); err != nil {
		t.Fatal(err)
	}
	h := <-otherGot
	for _, k := range []string{"X-Api-Key", "Authorization", "X-Tenant"} {
		if v := h.Get(k); v != "" {
			t.Errorf("header %s = %q followed a redirect to another host", k, v)
		}
	}
	same := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			http.Redirect(w, r, "/next", http.StatusFound)
			return
		}
		if r.Header.Get("X-Api-Key") != "s3cr3t" {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer same.Close()
	if status, err := get(t, c, same.URL, header); err != nil || status != http.StatusOK {
		t.Errorf("redirect to the same host: status %d, %v (the header should follow)", status, err)
	}
}

// TestRedirectHTTPSToHTTPRefused: an https endpoint redirecting to http is
// an error, and the http endpoint receives nothing.
func TestRedirectHTTPSToHTTPRefused(t *testing.T) {
	plain, plainGot := seen(t)
	secure := httptest.NewTLSServer(http.RedirectHandler(plain.URL+"/x", http.StatusFound))
	defer secure.Close()
	c := NewClients(secure.Client().Transport.(*http.Transport), provider.HTTPPolicy{}).For(false)
	_, err := get(t, c, secure.URL, nil)
	want := "GET " + secure.URL + ": refused a redirect from https to GET " + plain.URL
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
	select {
	case <-plainGot:
		t.Error("the http endpoint was reached")
	default:
	}
}

// TestRedirectLimit: a redirect loop stops after ten redirects.
func TestRedirectLimit(t *testing.T) {
	loop := httptest.NewServer(http.RedirectHandler("/", http.StatusFound))
	defer loop.Close()
	_, err := get(t, NewClients(nil, provider.HTTPPolicy{}).For(false), loop.URL, nil)
	if err == nil || !strings.HasSuffix(err.Error(), "stopped after 10 redirects") {
		t.Fatalf("error %v", err)
	}
}

// TestLinkLocalRefused: link-local and metadata destinations are refused,
// by URL and after a redirect, naming the address and the flag; the error
// is the policy's, not a timeout or a DNS failure (nothing was sent).
func TestLinkLocalRefused(t *testing.T) {
	c := NewClients(nil, provider.HTTPPolicy{}).For(false)
	for _, url := range []string{
		"http://169.254.169.254/latest/meta-data/",
		"http://[fd00:ec2::254]/latest/",
		"http://[fe80::1]:8080/",
		"http://[fe80::1%25eth0]:8080/",
		"http://metadata.google.internal./computeMetadata/v1/",
		redirector(t, "http://169.254.169.254/latest/meta-data/iam").URL,
	} {
		_, err := get(t, c, url, nil)
		if err == nil || !strings.Contains(err.Error(), "refused to reach the link-local or cloud-metadata address") ||
			!strings.Contains(err.Error(), "--allow-link-local-providers") || strings.Contains(err.Error(), "latest") {
			t.Errorf("%s: error %v", url, err)
		}
	}
}

// TestDialRefusesLinkLocal: the dial hook refuses a resolved link-local
// address before connect, whatever name or redirect led there; other
// addresses are dialled.
func TestDialRefusesLinkLocal(t *testing.T) {
	d := net.Dialer{Control: refuseLinkLocal, Timeout: 5 * time.Second}
	for _, addr := range []string{"169.254.169.254:80", "[fd00:ec2::254]:80", "[fe80::1]:80", "[::ffff:169.254.1.1]:80"} {
		start := time.Now()
		_, err := d.DialContext(context.Background(), "tcp", addr)
		if err == nil || !strings.Contains(err.Error(), "refused to reach the link-local") {
			t.Errorf("%s: error %v", addr, err)
		}
		if time.Since(start) > 2*time.Second { // a refusal, not a connect timeout
			t.Errorf("%s: took %s", addr, time.Since(start))
		}
	}
	srv, _ := seen(t)
	conn, err := d.DialContext(context.Background(), "tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatalf("loopback refused: %v", err)
	}
	_ = conn.Close()
	for _, a := range []string{"169.254.0.1", "fe80::abcd", "fe80::1%eth0", "fd00:ec2::254"} {
		if !refusedAddr(netip.MustParseAddr(a)) {
			t.Errorf("%s allowed", a)
		}
	}
	for _, a := range []string{"169.255.0.1", "10.0.0.1", "fd00:ec2::253", "127.0.0.1", "::1"} {
		if refusedAddr(netip.MustParseAddr(a)) {
			t.Errorf("%s refused", a)
		}
	}
}

// TestAllowLinkLocal: with --allow-link-local-providers the metadata name
// is not refused by the policy (it then fails to resolve, or connects).
func TestAllowLinkLocal(t *testing.T) {
	c := NewClients(nil, provider.HTTPPolicy{AllowLinkLocal: true}).For(false)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	r, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://metadata.google.internal./", nil)
	if _, _, err := Do(ctx, c, r, MaxResponseBytes); err == nil || strings.Contains(err.Error(), "refused to reach") {
		t.Errorf("error %v, want one that is not the policy's", err)
	}
}

// TestHostAllowlist: with an allow-list, a request or a redirect to a host
// not in it is refused naming the host and the flag.
func TestHostAllowlist(t *testing.T) {
	ok, _ := seen(t)
	policy := provider.HTTPPolicy{HostAllowlist: []string{"127.0.0.1", "*.example.com"}}
	c := NewClients(nil, policy).For(false)
	if _, err := get(t, c, ok.URL, nil); err != nil {
		t.Fatalf("allowed host: %v", err)
	}
	away := strings.Replace(ok.URL, "127.0.0.1", "localhost", 1)
	for _, url := range []string{away, redirector(t, away+"/x").URL} {
		_, err := get(t, c, url, nil)
		if err == nil || !strings.HasSuffix(err.Error(), `host "localhost" is not in --provider-host-allowlist`) {
			t.Errorf("%s: error %v", url, err)
		}
	}
}

// TestDoRefusesLargeBody: a body over the limit is an error naming the
// limit, with or without a Content-Length.
func TestDoRefusesLargeBody(t *testing.T) {
	big := strings.Repeat("x", MaxResponseBytes+1)
	for _, chunked := range []bool{false, true} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			if chunked {
				w.(http.Flusher).Flush() // no Content-Length
			}
			_, _ = w.Write([]byte(big))
		}))
		_, err := get(t, NewClients(nil, provider.HTTPPolicy{}).For(false), srv.URL, nil)
		srv.Close()
		if err == nil || !strings.HasSuffix(err.Error(), "response larger than the 16 MiB limit") {
			t.Errorf("chunked=%v: error %v", chunked, err)
		}
	}
	exact := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(big[1:])) }))
	defer exact.Close()
	if _, err := get(t, NewClients(nil, provider.HTTPPolicy{}).For(false), exact.URL, nil); err != nil {
		t.Errorf("a body of exactly the limit: %v", err)
	}
}
