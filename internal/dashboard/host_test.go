package dashboard

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestLocalModeRefusesOtherHosts: without --in-cluster-auth the server acts
// as the kubeconfig user for whoever reaches it, so a request naming any
// host but a loopback one (a page of another site whose name was rebound to
// 127.0.0.1: DNS rebinding) is refused before it reads or does anything,
// even with a matching Origin and a valid CSRF token; loopback names are
// served. With --in-cluster-auth every request carries its own credentials
// and any host is served.
func TestLocalModeRefusesOtherHosts(t *testing.T) {
	rec := &recorder{}
	srv := testServer(t, Config{Reader: fakeClient(t, rec, nil), Writer: fakeClient(t, rec, nil), Actions: true})
	local := Options{Address: "127.0.0.1:3100"}.guard(srv)
	for _, host := range []string{"127.0.0.1:3100", "localhost:3100", "[::1]:3100", "127.0.0.1", "LOCALHOST:3100"} {
		r := reqWithHost(t, "GET", "/api/rollouts", host)
		if w := serve(local, r); w.Code != http.StatusOK {
			t.Errorf("Host %q: %d %s, want 200", host, w.Code, w.Body)
		}
	}
	for _, host := range []string{"rebound.example:3100", "rebound.example", "127.0.0.1.rebound.example:3100", "0.0.0.0:3100", "10.0.0.1:3100", ""} {
		for _, path := range []string{"/", "/api/rollouts", "/api/session", "/api/rollouts/shop/web"} {
			w := serve(local, reqWithHost(t, "GET", path, host))
			if w.Code != http.StatusMisdirectedRequest || !strings.Contains(w.Body.String(), "loopback") {
				t.Errorf("GET %s Host %q: %d %.100s, want 421 naming loopback", path, host, w.Code, w.Body)
			}
			if w.Header().Get("Content-Security-Policy") == "" {
				t.Errorf("GET %s Host %q: no security headers on the refusal", path, host)
			}
		}
	}
	// A rebound page holding a session of its own host and a matching Origin.
	h := session(t, srv)
	r := reqWithHost(t, "POST", "/api/rollouts/shop/web/promote", "rebound.example:3100")
	for k, vs := range h {
		r.Header[k] = vs
	}
	r.Header.Set("Origin", "http://rebound.example:3100")
	r.Body = http.NoBody
	if w := serve(local, r); w.Code != http.StatusMisdirectedRequest || len(rec.sent()) != 0 {
		t.Errorf("rebound promote: %d %s, %d patches sent", w.Code, w.Body, len(rec.sent()))
	}
	inCluster := Options{Address: "0.0.0.0:3100", InClusterAuth: true}.guard(srv)
	if w := serve(inCluster, reqWithHost(t, "GET", "/api/rollouts", "ramp-dashboard.ramp.svc:3100")); w.Code != http.StatusOK {
		t.Errorf("in-cluster, a Service's name: %d %s", w.Code, w.Body)
	}
}

func reqWithHost(t *testing.T, method, target, host string) *http.Request {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	r.Host = host
	return r
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}
