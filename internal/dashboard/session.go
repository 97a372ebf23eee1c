package dashboard

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
)

// Cross-site request forgery: a POST must carry, in the X-CSRF-Token
// header, the token GET /api/session issued for the session cookie (an
// HMAC of the cookie under a key that lives only in this process), and
// come from this origin. A page of another site can neither read the token
// nor set the header on a cross-site request.
const (
	sessionCookie = "ramp-session"
	csrfHeader    = "X-CSRF-Token"
)

// sessions issues and checks CSRF tokens; it stores nothing per session.
type sessions struct{ key []byte }

func newSessions() (*sessions, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	return &sessions{key: key}, nil
}

func (s *sessions) token(sid string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(sid))
	return hex.EncodeToString(m.Sum(nil))
}

// issue returns the CSRF token of the request's session, starting a
// session (a new cookie) when there is none.
func (s *sessions) issue(w http.ResponseWriter, r *http.Request) (string, error) {
	if c, err := r.Cookie(sessionCookie); err == nil && len(c.Value) == 32 {
		return s.token(c.Value), nil
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	sid := hex.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: sid, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: secure(r),
	})
	return s.token(sid), nil
}

// check refuses a state-changing request that is not provably from a page
// of this origin with this session's token.
func (s *sessions) check(r *http.Request) error {
	if err := sameOrigin(r); err != nil {
		return err
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return errors.New("no session: GET /api/session first")
	}
	got := r.Header.Get(csrfHeader)
	if got == "" || !hmac.Equal([]byte(got), []byte(s.token(c.Value))) {
		return errors.New("missing or wrong " + csrfHeader + " header: GET /api/session for the token")
	}
	return nil
}

// sameOrigin refuses a request whose Origin names another host or that the
// browser marks as cross-site.
func sameOrigin(r *http.Request) error {
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Host != r.Host {
			return errors.New("the request comes from another origin (" + o + ")")
		}
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return errors.New("the browser marks the request " + site)
	}
	return nil
}
