package dashboard

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// In-cluster, a browser cannot set Authorization on a navigation or an
// EventSource. Two ways in: an authenticating proxy in front injects
// Authorization: Bearer (it wins when present), or the person signs in by
// pasting a token (kubectl create token ...), which is checked with a
// TokenReview and kept here, in memory, under a random id the browser holds
// in an HttpOnly, SameSite=Strict cookie. Every request with the cookie
// reviews the token again, so an expired or revoked token signs the person
// out at once. The token never leaves the server again: not in a cookie,
// an answer, a URL or a log.
const (
	authCookie = "ramp-auth"
	// signInLifetime bounds a sign-in even when its token lives longer.
	signInLifetime = 8 * time.Hour
	// maxSignIns bounds the memory sign-ins take.
	maxSignIns = 10000
	// maxTokenBody bounds the sign-in request's body.
	maxTokenBody = 16 << 10
)

// SignIn authenticates a request by its Authorization: Bearer header, else
// by its sign-in cookie.
type SignIn struct {
	Reviewer TokenReviewer
	Now      func() time.Time

	mu   sync.Mutex
	byID map[string]signedIn // by the SHA-256 of the cookie's value
}

type signedIn struct {
	token string
	until time.Time
}

var _ Authenticator = (*SignIn)(nil)

// Authenticate: the header when present, else the cookie's token, reviewed
// again; an invalid token ends the sign-in.
func (s *SignIn) Authenticate(r *http.Request) (User, error) {
	if _, ok := bearer(r); ok {
		return s.Reviewer.Authenticate(r)
	}
	c, err := r.Cookie(authCookie)
	if err != nil {
		return User{}, fmt.Errorf("%w: not signed in: sign in with a Kubernetes token, or send Authorization: Bearer", errUnauthenticated)
	}
	token, ok := s.lookup(c.Value)
	if !ok {
		return User{}, fmt.Errorf("%w: signed out: the sign-in ended (signed out, after %s, or the dashboard restarted); sign in again", errUnauthenticated, signInLifetime)
	}
	u, err := s.Reviewer.Review(r.Context(), token)
	if errors.Is(err, errTokenInvalid) {
		s.forget(c.Value)
		return User{}, fmt.Errorf("%w: signed out: token expired or revoked; sign in again", errUnauthenticated)
	}
	u.SignedIn = err == nil
	return u, err
}

func idKey(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

func (s *SignIn) lookup(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.byID[idKey(id)]
	if !ok || !s.Now().Before(e.until) {
		return "", false
	}
	return e.token, true
}

func (s *SignIn) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byID, idKey(id))
}

// errTooMany is a sign-in refused because maxSignIns are live.
var errTooMany = errors.New("too many sign-ins: try again later")

// start keeps token under a new random id, returned for the cookie.
func (s *SignIn) start(token string) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	id := hex.EncodeToString(b)
	now := s.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byID == nil {
		s.byID = map[string]signedIn{}
	}
	if len(s.byID) >= maxSignIns {
		for k, e := range s.byID {
			if !now.Before(e.until) {
				delete(s.byID, k)
			}
		}
		if len(s.byID) >= maxSignIns {
			return "", errTooMany
		}
	}
	s.byID[idKey(id)] = signedIn{token: token, until: now.Add(signInLifetime)}
	return id, nil
}

// secure says whether the browser reached us over TLS (here, or at a
// proxy that says so): the cookies are then Secure. Trusting the header
// can only make a cookie stricter.
func secure(r *http.Request) bool {
	return r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https"
}

func setAuthCookie(w http.ResponseWriter, r *http.Request, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name: authCookie, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: secure(r),
	})
}

// signIn checks a pasted token with a TokenReview and, if valid, signs the
// browser in. The token is read from the JSON body only, never a URL.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request) {
	if !s.signInChecks(w, r) {
		return
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		writeError(w, http.StatusUnsupportedMediaType, `send the token as JSON {"token": "..."} with Content-Type: application/json`)
		return
	}
	var body struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxTokenBody)).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, `the body must be JSON {"token": "..."} of at most 16 KiB`) // the error could quote the token
		return
	}
	token := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(body.Token), "Bearer "))
	if token == "" {
		writeError(w, http.StatusBadRequest, "paste a token: for example the output of kubectl create token <service-account> -n <namespace>")
		return
	}
	u, err := s.cfg.SignIn.Reviewer.Review(r.Context(), token)
	switch {
	case errors.Is(err, errTokenInvalid):
		writeError(w, http.StatusUnauthorized, "not signed in: "+err.Error())
		return
	case errors.Is(err, errReviewsBusy):
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusTooManyRequests, "cannot sign in now: "+errReviewsBusy.Error())
		return
	case err != nil:
		s.cfg.Log.Error(err, "sign-in: the token review failed")
		writeError(w, http.StatusBadGateway, "cannot sign in: the token review failed")
		return
	}
	id, err := s.cfg.SignIn.start(token)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "cannot sign in: "+err.Error())
		return
	}
	setAuthCookie(w, r, id, int(signInLifetime/time.Second))
	s.cfg.Log.Info("signed in", "user", u.Name)
	writeJSON(w, http.StatusOK, map[string]string{"user": u.Name})
}

// signOut ends the browser's sign-in and clears its cookie.
func (s *Server) signOut(w http.ResponseWriter, r *http.Request) {
	if !s.signInChecks(w, r) {
		return
	}
	if c, err := r.Cookie(authCookie); err == nil {
		s.cfg.SignIn.forget(c.Value)
	}
	setAuthCookie(w, r, "", -1)
	writeJSON(w, http.StatusOK, map[string]string{"message": "signed out"})
}

// signInChecks answers 404 without sign-in (local mode) and 403 for a
// request from another site (signing someone in or out behind their back).
func (s *Server) signInChecks(w http.ResponseWriter, r *http.Request) bool {
	if s.cfg.SignIn == nil {
		writeError(w, http.StatusNotFound, "sign-in is for a dashboard started with --in-cluster-auth")
		return false
	}
	if err := sameOrigin(r); err != nil {
		writeError(w, http.StatusForbidden, "refused (cross-site request protection): "+err.Error())
		return false
	}
	return true
}
