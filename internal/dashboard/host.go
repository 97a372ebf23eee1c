package dashboard

import (
	"net"
	"net/http"
	"strconv"
	"strings"
)

// guard is the handler Run serves: in local mode (no --in-cluster-auth)
// only requests that name a loopback host. The local server acts as the
// kubeconfig user for whoever reaches it and the browser sends no
// credentials of its own, so a page of another site whose name an attacker
// rebinds to 127.0.0.1 (DNS rebinding) would otherwise be same-origin with
// it: it could read every rollout and, with the session and CSRF token it
// may then fetch, act. The Host header names the site the browser thinks it
// talks to; only loopback names reach the API. In-cluster every request
// carries its own bearer token, so any host (a Service, an Ingress) is
// served.
func (o Options) guard(h http.Handler) http.Handler {
	if o.InClusterAuth {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host) {
			securityHeaders(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				writeError(w, http.StatusMisdirectedRequest, "the dashboard serves only loopback hosts (127.0.0.1, [::1], localhost) without --in-cluster-auth, not "+strconv.Quote(r.Host))
			})).ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a Host header (host or host:port) names this
// machine's loopback interface: localhost or a loopback IP literal.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
