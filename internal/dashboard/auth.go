package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	authnclient "k8s.io/client-go/kubernetes/typed/authentication/v1"
)

// User is who a request acts for.
type User struct {
	Name   string   `json:"name"`
	Groups []string `json:"groups,omitempty"`
	UID    string   `json:"-"`
	Extra  map[string][]string
	// SignedIn: authenticated by the sign-in cookie (the page offers to
	// sign out), not by an Authorization header.
	SignedIn bool `json:"-"`
}

// Authenticator says who sent a request.
type Authenticator interface {
	Authenticate(r *http.Request) (User, error)
}

// errUnauthenticated is a request without valid credentials: 401.
var errUnauthenticated = errors.New("unauthenticated")

// Local is the identity of `ramp dashboard` on a workstation: the user's
// own kubeconfig, which the API server checks on every call.
type Local struct{ Name string }

// Authenticate accepts every request: the server listens on loopback and
// acts with the kubeconfig identity, so it grants nothing kubectl would not.
func (l Local) Authenticate(*http.Request) (User, error) { return User{Name: l.Name}, nil }

// TokenReviewer authenticates a Kubernetes bearer token with a TokenReview.
type TokenReviewer struct {
	Reviews authnclient.TokenReviewInterface
	// Audiences, when set, are the audiences the token must be valid for.
	Audiences []string
	// Cache, when set, keeps answers and bounds the reviews of new tokens.
	Cache *ReviewCache
}

// Authenticate reads the Authorization: Bearer header (set by the API
// client, or injected by an authenticating proxy) and asks the API server
// who the token belongs to. A missing, malformed, expired or unknown token
// is errUnauthenticated; a failed review is another error.
func (t TokenReviewer) Authenticate(r *http.Request) (User, error) {
	token, ok := bearer(r)
	if !ok {
		return User{}, fmt.Errorf("%w: no Authorization: Bearer token", errUnauthenticated)
	}
	u, err := t.Review(r.Context(), token)
	if errors.Is(err, errTokenInvalid) {
		return User{}, fmt.Errorf("%w: the bearer token is not valid (expired, revoked or unknown)", errUnauthenticated)
	}
	return u, err
}

// bearer is the request's Authorization: Bearer token.
func bearer(r *http.Request) (string, bool) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return token, ok && strings.TrimSpace(token) != ""
}

// errTokenInvalid is a token the API server does not accept.
var errTokenInvalid = errors.New("the token is not valid (expired, revoked or unknown)")

// Review asks the API server who token belongs to: errTokenInvalid when
// it is not valid, another error when the review failed. The token is
// never logged nor put in an error.
func (t TokenReviewer) Review(ctx context.Context, token string) (User, error) {
	if t.Cache == nil {
		return t.review(ctx, token)
	}
	key := reviewKey(token, t.Audiences)
	if r, ok := t.Cache.get(key); ok {
		return r.user, r.err
	}
	if !t.Cache.allow() {
		return User{}, errReviewsBusy
	}
	u, err := t.review(ctx, token)
	if err == nil || errors.Is(err, errTokenInvalid) {
		t.Cache.put(key, u, err)
	}
	return u, err
}

// review sends the TokenReview.
func (t TokenReviewer) review(ctx context.Context, token string) (User, error) {
	review := &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token, Audiences: t.Audiences}}
	got, err := t.Reviews.Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		return User{}, fmt.Errorf("token review: %w", err)
	}
	if !got.Status.Authenticated {
		return User{}, errTokenInvalid
	}
	u := got.Status.User
	extra := map[string][]string{}
	for k, v := range u.Extra {
		extra[k] = v
	}
	return User{Name: u.Username, Groups: u.Groups, UID: u.UID, Extra: extra}, nil
}

type userKey struct{}

func withUser(ctx context.Context, u User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

func userOf(ctx context.Context) User {
	u, _ := ctx.Value(userKey{}).(User) // set by authenticate for every /api route
	return u
}
