package dashboard

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// cluster is a fake API server's authentication and authorization: the
// token "alice" is user alice (group dev), "broken" fails the review;
// rules lists what alice may do as "verb resource/sub namespace".
type cluster struct {
	mu      sync.Mutex
	revoked bool // alice's token is no longer valid
	rules   map[string]bool
	reviews []authzv1.ResourceAttributes
	cs      *kubefake.Clientset
}

func newCluster(rules ...string) *cluster {
	c := &cluster{rules: map[string]bool{}, cs: kubefake.NewClientset()}
	for _, r := range rules {
		c.rules[r] = true
	}
	c.cs.PrependReactor("create", "tokenreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		tr := a.(k8stesting.CreateAction).GetObject().(*authnv1.TokenReview)
		switch tr.Spec.Token {
		case "alice":
			c.mu.Lock()
			tr.Status = authnv1.TokenReviewStatus{Authenticated: !c.revoked, User: authnv1.UserInfo{Username: "alice", Groups: []string{"dev"}}}
			c.mu.Unlock()
		case "broken":
			return true, nil, errors.New("API server unreachable")
		}
		return true, tr, nil
	})
	c.cs.PrependReactor("create", "subjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		sar := a.(k8stesting.CreateAction).GetObject().(*authzv1.SubjectAccessReview)
		ra := *sar.Spec.ResourceAttributes
		c.mu.Lock()
		defer c.mu.Unlock()
		c.reviews = append(c.reviews, ra)
		res := ra.Resource
		if ra.Subresource != "" {
			res += "/" + ra.Subresource
		}
		sar.Status.Allowed = sar.Spec.User == "alice" && strings.Join(sar.Spec.Groups, ",") == "dev" && c.rules[ra.Verb+" "+res+" "+ra.Namespace]
		return true, sar, nil
	})
	return c
}

func (c *cluster) reviewCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.reviews)
}

// inCluster is the --in-cluster-auth configuration over c.
func (c *cluster) inCluster(cfg Config, clock func() time.Time) Config {
	cfg.Authn = TokenReviewer{Reviews: c.cs.AuthenticationV1().TokenReviews()}
	cfg.Authz = &SubjectAccessReviewer{Reviews: c.cs.AuthorizationV1().SubjectAccessReviews(), TTL: 10 * time.Second, Now: clock}
	return cfg
}

var bearerAlice = http.Header{"Authorization": {"Bearer alice"}}

// TestTokenReview: no token, an invalid token → 401; a failed review →
// 502; alice's token → her name in the session.
func TestTokenReview(t *testing.T) {
	c := newCluster("list rollouts ")
	s := testServer(t, c.inCluster(Config{Reader: fakeClient(t, &recorder{}, nil)}, time.Now))
	for token, want := range map[string]int{"": 401, "Bearer expired": 401, "Basic alice": 401, "Bearer broken": 502, "Bearer alice": 200} {
		w := do(t, s, "GET", "/api/session", "", http.Header{"Authorization": {token}})
		if w.Code != want {
			t.Errorf("Authorization %q: %d %s, want %d", token, w.Code, w.Body, want)
		}
		if want == 401 && w.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("Authorization %q: 401 without WWW-Authenticate", token)
		}
	}
	if u := decode[map[string]any](t, do(t, s, "GET", "/api/session", "", bearerAlice))["user"]; u != "alice" {
		t.Errorf("session user %v, want alice", u)
	}
}

// TestListFilteredByNamespace: alice may list rollouts in shop only: she
// sees web, not bank's ledger; the detail of ledger is 403; in shop the
// kinds she may not list are withheld (HPAs and the revisions undo offers
// included).
func TestListFilteredByNamespace(t *testing.T) {
	c := newCluster("list rollouts shop", "get rollouts shop", "list analysisruns shop")
	s := testServer(t, c.inCluster(Config{Reader: fakeClient(t, &recorder{}, nil)}, time.Now))
	l := decode[RolloutList](t, do(t, s, "GET", "/api/rollouts", "", bearerAlice))
	if len(l.Items) != 1 || l.Items[0].Name != "web" {
		t.Errorf("alice lists %+v, want shop/web only", l.Items)
	}
	w := do(t, s, "GET", "/api/rollouts/bank/ledger", "", bearerAlice)
	if e := decode[apiError](t, w); w.Code != http.StatusForbidden || !strings.Contains(e.Error, `get rollouts.argoproj.io in namespace "bank"`) {
		t.Errorf("bank/ledger = %d %q", w.Code, e.Error)
	}
	d := decode[RolloutDetail](t, do(t, s, "GET", "/api/rollouts/shop/web", "", bearerAlice))
	if strings.Join(d.Withheld, ",") != "replicasets,pods,experiments,events,horizontalpodautoscalers" || len(d.Rollout.Revisions) != 0 ||
		len(d.Events) != 0 || len(d.AnalysisRuns) != 1 || len(d.HPAs) != 0 || len(d.Confirm.Undo) != 0 {
		t.Errorf("withheld %v, revisions %d, events %d, runs %d, HPAs %d, undo targets %d", d.Withheld, len(d.Rollout.Revisions), len(d.Events),
			len(d.AnalysisRuns), len(d.HPAs), len(d.Confirm.Undo))
	}
}

// TestSubjectAccessReviewCache: a decision is reused for its TTL, per
// user, verb, resource and namespace, and asked again after it.
func TestSubjectAccessReviewCache(t *testing.T) {
	c := newCluster("list rollouts shop")
	clock := now
	a := &SubjectAccessReviewer{Reviews: c.cs.AuthorizationV1().SubjectAccessReviews(), TTL: 10 * time.Second, Now: func() time.Time { return clock }}
	alice := User{Name: "alice", Groups: []string{"dev"}}
	ask := func(u User, verb, ns string) bool {
		ok, err := a.Allowed(t.Context(), u, rolloutsAccess(verb, ns))
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	first, second := ask(alice, "list", "shop"), ask(alice, "list", "shop")
	if !first || !second || c.reviewCount() != 1 {
		t.Errorf("two asks within the TTL: %d reviews, want 1", c.reviewCount())
	}
	if ask(alice, "patch", "shop") || ask(User{Name: "bob", Groups: []string{"dev"}}, "list", "shop") || c.reviewCount() != 3 {
		t.Errorf("another verb, another user: %d reviews, want 3", c.reviewCount())
	}
	clock = clock.Add(10 * time.Second)
	if !ask(alice, "list", "shop") || c.reviewCount() != 4 {
		t.Errorf("after the TTL: %d reviews, want 4", c.reviewCount())
	}
}

// TestSubjectAccessReviewCacheKeysExtra: a user's extra attributes (token
// scopes, the credential's ID) are part of what the API server decides on,
// so a decision for one token of alice is not reused for another of hers
// with other extras: a scoped-down token is reviewed on its own and refused.
func TestSubjectAccessReviewCacheKeysExtra(t *testing.T) {
	cs := kubefake.NewClientset()
	reviews := 0
	cs.PrependReactor("create", "subjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		sar := a.(k8stesting.CreateAction).GetObject().(*authzv1.SubjectAccessReview)
		reviews++
		sar.Status.Allowed = len(sar.Spec.Extra["scopes"]) == 0 // a scoped token may not list rollouts
		return true, sar, nil
	})
	a := &SubjectAccessReviewer{Reviews: cs.AuthorizationV1().SubjectAccessReviews(), TTL: 10 * time.Second, Now: func() time.Time { return now }}
	full := User{Name: "alice", Groups: []string{"dev"}, Extra: map[string][]string{"credential-id": {"a"}}}
	scoped := User{Name: "alice", Groups: []string{"dev"}, Extra: map[string][]string{"credential-id": {"b"}, "scopes": {"user:info"}}}
	if ok, err := a.Allowed(t.Context(), full, rolloutsAccess("list", "shop")); err != nil || !ok {
		t.Fatalf("the full token: %v %v", ok, err)
	}
	if ok, err := a.Allowed(t.Context(), scoped, rolloutsAccess("list", "shop")); err != nil || ok || reviews != 2 {
		t.Errorf("the scoped token within the TTL: allowed %v (%v) after %d reviews, want refused after 2", ok, err, reviews)
	}
}
