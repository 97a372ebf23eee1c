package dashboard

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
)

// signInServer is an in-cluster server over c with browser sign-in, whose
// log is kept in the returned function's answer.
func signInServer(t *testing.T, c *cluster, clock *time.Time) (*Server, func() string) {
	t.Helper()
	var mu sync.Mutex
	var log strings.Builder
	cfg := c.inCluster(Config{Reader: fakeClient(t, &recorder{}, nil)}, func() time.Time { return *clock })
	cfg.SignIn = &SignIn{Reviewer: cfg.Authn.(TokenReviewer), Now: func() time.Time { return *clock }}
	cfg.Authn = nil
	cfg.Log = funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		log.WriteString(prefix + " " + args + "\n")
	}, funcr.Options{Verbosity: 9})
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, func() string { mu.Lock(); defer mu.Unlock(); return log.String() }
}

var jsonSameOrigin = http.Header{"Content-Type": {"application/json"}, "Origin": {"http://example.com"}, "Sec-Fetch-Site": {"same-origin"}}

// cookieOf is the ramp-auth cookie a response sets, nil if none.
func cookieOf(r *http.Response) *http.Cookie {
	for _, c := range r.Cookies() {
		if c.Name == authCookie {
			return c
		}
	}
	return nil
}

func withCookie(h http.Header, c *http.Cookie) http.Header {
	h = h.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Cookie", c.Name+"="+c.Value)
	return h
}

// TestSignInFlow: without credentials the API is 401 offering sign-in; a
// pasted valid token signs the browser in with an HttpOnly, SameSite=Strict
// cookie (Secure behind TLS) that holds a random id, not the token; the
// cookie then authenticates every request (the session says signedIn);
// sign-out clears it and the same cookie is refused after. The token is in
// no answer and no log line.
func TestSignInFlow(t *testing.T) {
	clock := now
	c := newCluster("list rollouts ")
	s, log := signInServer(t, c, &clock)
	w := do(t, s, "GET", "/api/rollouts", "", nil)
	if e := decode[unauthorized](t, w); w.Code != 401 || !e.SignIn || !strings.Contains(e.Error, "not signed in") {
		t.Errorf("no credentials: %d %+v", w.Code, e)
	}
	if w := do(t, s, "POST", "/api/signin", `{"token":"stolen"}`, jsonSameOrigin); w.Code != 401 || cookieOf(w.Result()) != nil || !strings.Contains(w.Body.String(), "not valid") {
		t.Errorf("invalid token: %d %s, cookie %v", w.Code, w.Body, cookieOf(w.Result()))
	}
	w = do(t, s, "POST", "/api/signin", `{"token":"Bearer alice\n"}`, jsonSameOrigin)
	ck := cookieOf(w.Result())
	if w.Code != 200 || ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Secure || ck.Path != "/" {
		t.Fatalf("sign-in: %d %s, cookie %+v", w.Code, w.Body, ck)
	}
	if strings.Contains(ck.Value, "alice") || !strings.Contains(w.Body.String(), `"alice"`) {
		t.Errorf("cookie %q (must not hold the token), answer %s (must name the user)", ck.Value, w.Body)
	}
	tls := jsonSameOrigin.Clone()
	tls.Set("X-Forwarded-Proto", "https")
	if ck := cookieOf(do(t, s, "POST", "/api/signin", `{"token":"alice"}`, tls).Result()); ck == nil || !ck.Secure {
		t.Errorf("behind TLS: cookie %+v, want Secure", ck)
	}
	sess := decode[map[string]any](t, do(t, s, "GET", "/api/session", "", withCookie(nil, ck)))
	if sess["user"] != "alice" || sess["signedIn"] != true {
		t.Errorf("session with the cookie: %v", sess)
	}
	if w := do(t, s, "GET", "/api/rollouts", "", withCookie(nil, ck)); w.Code != 200 {
		t.Errorf("list with the cookie: %d %s", w.Code, w.Body)
	}
	w = do(t, s, "POST", "/api/signout", "", withCookie(jsonSameOrigin, ck))
	if out := cookieOf(w.Result()); w.Code != 200 || out == nil || out.MaxAge >= 0 {
		t.Errorf("sign-out: %d, cookie %+v (want cleared)", w.Code, out)
	}
	w = do(t, s, "GET", "/api/rollouts", "", withCookie(nil, ck))
	if e := decode[unauthorized](t, w); w.Code != 401 || !strings.Contains(e.Error, "signed out: the sign-in ended") {
		t.Errorf("the cookie after sign-out: %d %+v", w.Code, e)
	}
	// A failed review is logged, without the token.
	do(t, s, "POST", "/api/signin", `{"token":"broken"}`, jsonSameOrigin)
	if l := log(); !strings.Contains(l, "token review failed") || !strings.Contains(l, `"user"="alice"`) || strings.Contains(l, "broken") || strings.Contains(l, "stolen") {
		t.Errorf("log holds a token, or lacks the failed review:\n%s", l)
	}
}

// TestSignInRevokedOrExpired: a signed-in browser whose token is revoked
// (or expires) gets 401 "signed out: token expired or revoked" with the
// cookie cleared, and the sign-in is gone; a sign-in also ends after
// signInLifetime whatever the token.
func TestSignInRevokedOrExpired(t *testing.T) {
	clock := now
	c := newCluster("list rollouts ")
	s, _ := signInServer(t, c, &clock)
	ck := cookieOf(do(t, s, "POST", "/api/signin", `{"token":"alice"}`, jsonSameOrigin).Result())
	c.mu.Lock()
	c.revoked = true
	c.mu.Unlock()
	w := do(t, s, "GET", "/api/rollouts", "", withCookie(nil, ck))
	if e := decode[unauthorized](t, w); w.Code != 401 || e.Error != "signed out: token expired or revoked; sign in again" || !e.SignIn {
		t.Errorf("revoked: %d %+v", w.Code, e)
	}
	if out := cookieOf(w.Result()); out == nil || out.MaxAge >= 0 {
		t.Errorf("revoked: cookie %+v, want cleared", out)
	}
	c.mu.Lock()
	c.revoked = false
	c.mu.Unlock()
	if w := do(t, s, "GET", "/api/rollouts", "", withCookie(nil, ck)); w.Code != 401 {
		t.Errorf("the revoked sign-in came back: %d", w.Code)
	}
	ck = cookieOf(do(t, s, "POST", "/api/signin", `{"token":"alice"}`, jsonSameOrigin).Result())
	clock = clock.Add(signInLifetime)
	if w := do(t, s, "GET", "/api/rollouts", "", withCookie(nil, ck)); w.Code != 401 || !strings.Contains(w.Body.String(), "sign-in ended") {
		t.Errorf("after %s: %d %s", signInLifetime, w.Code, w.Body)
	}
}

// TestSignInRefusals: from another site, not JSON, an empty or oversized
// token, or a local-mode server: refused, no cookie; an Authorization
// header wins over the cookie (a proxy's identity).
func TestSignInRefusals(t *testing.T) {
	clock := now
	s, _ := signInServer(t, newCluster(), &clock)
	local := testServer(t, Config{Reader: fakeClient(t, &recorder{}, nil)})
	with := func(k, v string) http.Header {
		h := jsonSameOrigin.Clone()
		h.Set(k, v)
		return h
	}
	for _, tc := range []struct {
		name string
		s    *Server
		body string
		h    http.Header
		code int
		msg  string
	}{
		{"other origin", s, `{"token":"alice"}`, with("Origin", "https://evil.example"), 403, "another origin"},
		{"cross-site", s, `{"token":"alice"}`, with("Sec-Fetch-Site", "cross-site"), 403, "cross-site"},
		{"a form post", s, `token=alice`, with("Content-Type", "application/x-www-form-urlencoded"), 415, "JSON"},
		{"empty", s, `{"token":"  "}`, jsonSameOrigin, 400, "paste a token"},
		{"too long", s, `{"token":"` + strings.Repeat("a", maxTokenBody) + `"}`, jsonSameOrigin, 400, "16 KiB"},
		{"local mode", local, `{"token":"alice"}`, jsonSameOrigin, 404, "--in-cluster-auth"},
	} {
		w := do(t, tc.s, "POST", "/api/signin", tc.body, tc.h)
		if e := decode[apiError](t, w); w.Code != tc.code || !strings.Contains(e.Error, tc.msg) || cookieOf(w.Result()) != nil {
			t.Errorf("%s: %d %q, want %d %q and no cookie", tc.name, w.Code, e.Error, tc.code, tc.msg)
		}
	}
	ck := cookieOf(do(t, s, "POST", "/api/signin", `{"token":"alice"}`, jsonSameOrigin).Result())
	h := withCookie(http.Header{"Authorization": {"Bearer stolen"}}, ck)
	if w := do(t, s, "GET", "/api/session", "", h); w.Code != 401 || !strings.Contains(w.Body.String(), "bearer token is not valid") || cookieOf(w.Result()) != nil {
		t.Errorf("header and cookie: %d %s, want the header's 401, the cookie kept", w.Code, w.Body)
	}
}

// TestSignOutEndsEventStream: an event stream opened with the sign-in
// cookie checks it again at each keep-alive: after sign-out it sends
// "signedout" and ends.
func TestSignOutEndsEventStream(t *testing.T) {
	clock := now
	c := newCluster("list rollouts shop")
	s, _ := signInServer(t, c, &clock)
	s.cfg.Hub = NewHub(Render(s.cfg.Reader), 8)
	s.keepAlive = 10 * time.Millisecond
	ts := httptest.NewServer(s)
	defer ts.Close()
	ck := cookieOf(do(t, s, "POST", "/api/signin", `{"token":"alice"}`, jsonSameOrigin).Result())
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // a stream that never ends fails here
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/events", nil)
	req.AddCookie(ck)
	resp, err := ts.Client().Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /api/events: %v %v", resp, err)
	}
	defer func() { _ = resp.Body.Close() }()
	r := bufio.NewReader(resp.Body)
	if l, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(l, ": connected") {
		t.Fatalf("first line %q %v", l, err)
	}
	do(t, s, "POST", "/api/signout", "", withCookie(jsonSameOrigin, ck))
	rest, err := io.ReadAll(r) // ends when the server ends the stream
	if err != nil || !strings.Contains(string(rest), "event: signedout") {
		t.Errorf("after sign-out the stream sent %q (%v), want event: signedout and its end", rest, err)
	}
}
