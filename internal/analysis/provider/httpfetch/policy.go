package httpfetch

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// maxRedirects is how many redirects a request follows, as Go's default.
const maxRedirects = 10

// metadataNames are host names of cloud metadata services that are refused
// by name (before any lookup) unless link-local destinations are allowed.
var metadataNames = []string{"metadata.google.internal"}

// linkLocal are the link-local and cloud-metadata networks refused at dial
// time: IPv4 and IPv6 link-local, and AWS's IPv6 metadata address.
var linkLocal = []netip.Prefix{
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("fe80::/10"),
	netip.MustParsePrefix("fd00:ec2::254/128"),
}

// refusedAddr reports whether ip is in a refused network.
func refusedAddr(ip netip.Addr) bool {
	ip = ip.Unmap().WithZone("") // a zoned address never matches a prefix
	for _, p := range linkLocal {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// refuseLinkLocal is a net.Dialer Control hook: it runs on the resolved
// address after the socket is created and before it connects, so no
// packet reaches a refused address, whatever name or redirect led there.
func refuseLinkLocal(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("dial to %q: not an IP address", host)
	}
	if refusedAddr(ip) {
		return linkLocalError(ip.String())
	}
	return nil
}

func linkLocalError(host string) error {
	return fmt.Errorf("refused to reach the link-local or cloud-metadata address %s (--%s allows it)", host, provider.AllowLinkLocalFlag)
}

// guard checks every request the client sends, the first and each
// redirect, against the policy's hosts before the transport sees it (a
// request through a proxy is checked too, though the dial is the proxy's).
type guard struct {
	next   http.RoundTripper
	policy provider.HTTPPolicy
}

func (g guard) RoundTrip(r *http.Request) (*http.Response, error) {
	host := strings.TrimSuffix(strings.ToLower(r.URL.Hostname()), ".")
	if !g.policy.HostAllowed(host) {
		closeBody(r)
		return nil, fmt.Errorf("host %q is not in --%s", host, provider.HostAllowlistFlag)
	}
	if !g.policy.AllowLinkLocal && refusedHost(host) {
		closeBody(r)
		return nil, linkLocalError(host)
	}
	return g.next.RoundTrip(r)
}

// refusedHost reports whether a URL's host names a refused destination
// itself: a metadata name or a link-local IP literal.
func refusedHost(host string) bool {
	for _, name := range metadataNames {
		if host == name {
			return true
		}
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && refusedAddr(ip)
}

// closeBody honours RoundTrip's contract: the request body is closed even
// when the request is refused.
func closeBody(r *http.Request) {
	if r.Body != nil {
		_ = r.Body.Close()
	}
}

// checkRedirect is the clients' redirect policy: at most maxRedirects; never
// from https to http; and on a redirect to another host (host:port differs
// from the first request's), none of the headers the metric set is sent
// (Go itself strips only Authorization, cookies and the like).
func checkRedirect(r *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	for _, prev := range via {
		if prev.URL.Scheme == "https" && r.URL.Scheme != "https" {
			return errors.New("refused a redirect from https to " + Where(r.Method, r.URL))
		}
	}
	first := via[0]
	if !strings.EqualFold(first.URL.Host, r.URL.Host) {
		for key := range first.Header {
			if key != "Content-Type" { // describes a 307/308 body, never a credential
				r.Header.Del(key)
			}
		}
	}
	return nil
}
