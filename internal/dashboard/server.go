package dashboard

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Config is what a Server is built from.
type Config struct {
	// Reader is where every read comes from: the shared informer cache.
	Reader client.Reader
	// Writer sends the actions' patches, and reads the Rollout fresh before
	// acting so a decision is never made on a stale cache.
	Writer client.Client
	// Authn says who a request is from; Authz what they may do.
	Authn Authenticator
	Authz Authorizer
	// SignIn, when set, serves POST /api/signin and /api/signout (a token
	// pasted in the page, kept behind a cookie); it is also the
	// Authenticator when Authn is nil.
	SignIn *SignIn
	// Actions enables the POST actions; without it the server is read-only.
	Actions bool
	// Hub carries live updates; nil: /api/events is not served.
	Hub *Hub
	// Now is the clock (restart times, ages).
	Now func() time.Time
	// Assets are the web page's files; nil: the embedded bundle, or the
	// placeholder page when it was not built.
	Assets fs.FS
	Log    logr.Logger
}

// Server is the dashboard's HTTP handler.
type Server struct {
	cfg      Config
	sessions *sessions
	mux      *http.ServeMux
	sims     simulations
	// keepAlive is keepAliveEvery, shorter in tests.
	keepAlive time.Duration
}

// New builds the handler; a nil Authz allows everything (local mode).
func New(cfg Config) (*Server, error) {
	if cfg.Authz == nil {
		cfg.Authz = allowAll{}
	}
	if cfg.Authn == nil && cfg.SignIn != nil {
		cfg.Authn = cfg.SignIn
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	ss, err := newSessions()
	if err != nil {
		return nil, err
	}
	if cfg.Assets == nil {
		cfg.Assets = builtAssets()
	}
	s := &Server{cfg: cfg, sessions: ss, mux: http.NewServeMux(), keepAlive: keepAliveEvery}
	s.mux.Handle("GET /", staticHandler(cfg.Assets))
	s.mux.Handle("GET /api/session", s.authenticated(s.session))
	s.mux.Handle("GET /api/rollouts", s.authenticated(s.listRollouts))
	s.mux.Handle("GET /api/rollouts/{ns}/{name}", s.authenticated(s.getRollout))
	s.mux.Handle("GET /api/events", s.authenticated(s.events))
	s.mux.Handle("POST /api/rollouts/{ns}/{name}/{action}", s.authenticated(s.act))
	s.mux.HandleFunc("POST /api/signin", s.signIn)
	s.mux.HandleFunc("POST /api/signout", s.signOut)
	return s, nil
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	securityHeaders(s.mux).ServeHTTP(w, r)
}

// authenticated runs h for an authenticated user: 401 without valid
// credentials, 502 when the API server could not be asked.
func (s *Server) authenticated(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, err := s.cfg.Authn.Authenticate(r)
		switch {
		case errors.Is(err, errUnauthenticated):
			w.Header().Set("WWW-Authenticate", `Bearer realm="ramp-dashboard"`)
			if _, cerr := r.Cookie(authCookie); cerr == nil {
				if _, header := bearer(r); !header {
					setAuthCookie(w, r, "", -1) // the sign-in is over
				}
			}
			msg := strings.TrimPrefix(err.Error(), errUnauthenticated.Error()+": ")
			writeJSON(w, http.StatusUnauthorized, unauthorized{msg, s.cfg.SignIn != nil})
			return
		case errors.Is(err, errReviewsBusy):
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusTooManyRequests, "cannot authenticate the request now: "+errReviewsBusy.Error())
			return
		case err != nil:
			s.cfg.Log.Error(err, "authentication failed")
			writeError(w, http.StatusBadGateway, "cannot authenticate the request: the token review failed")
			return
		}
		h(w, r.WithContext(withUser(r.Context(), u)))
	})
}

// session issues the CSRF token and says what the user may do.
func (s *Server) session(w http.ResponseWriter, r *http.Request) {
	token, err := s.sessions.issue(w, r)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "cannot start a session")
		return
	}
	u := userOf(r.Context())
	writeJSON(w, http.StatusOK, map[string]any{"csrfToken": token, "actionsEnabled": s.cfg.Actions, "user": u.Name, "signedIn": u.SignedIn})
}

// apiError is the body of every error answer.
type apiError struct {
	Error string `json:"error"`
}

// unauthorized is the body of a 401: why, and whether the page may offer
// to sign in with a token.
type unauthorized struct {
	Error  string `json:"error"`
	SignIn bool   `json:"signIn"`
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, apiError{msg})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v) // the client left: nobody to tell
}
