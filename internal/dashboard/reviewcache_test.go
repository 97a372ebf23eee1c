package dashboard

import (
	"net/http"
	"testing"
	"time"

	"golang.org/x/time/rate"
	k8stesting "k8s.io/client-go/testing"
)

// tokenReviews counts the TokenReviews the fake API server received.
func tokenReviews(c *cluster) int {
	n := 0
	for _, a := range c.cs.Actions() {
		if cr, ok := a.(k8stesting.CreateAction); ok && cr.GetResource().Resource == "tokenreviews" {
			n++
		}
	}
	return n
}

// TestReviewCache: with the cache, alice's five requests cost one
// TokenReview, an invalid token's two cost one, and after the TTL alice's
// token is reviewed again (a revocation is seen then: 401). Tokens the
// cache does not hold are reviewed at most at the limiter's rate: past
// it, 429 with Retry-After and no review sent. A failed review (the API
// server unreachable) is not kept.
func TestReviewCache(t *testing.T) {
	c := newCluster("list rollouts ")
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	cfg := c.inCluster(Config{Reader: fakeClient(t, &recorder{}, nil)}, clock)
	cache := &ReviewCache{TTL: 10 * time.Second, Now: clock, Limit: rate.NewLimiter(0, 3)}
	cfg.Authn = TokenReviewer{Reviews: c.cs.AuthenticationV1().TokenReviews(), Cache: cache}
	s := testServer(t, cfg)
	get := func(token string) int {
		return do(t, s, "GET", "/api/rollouts", "", http.Header{"Authorization": {"Bearer " + token}}).Code
	}
	for range 5 {
		if code := get("alice"); code != http.StatusOK {
			t.Fatalf("alice: %d", code)
		}
	}
	if n := tokenReviews(c); n != 1 {
		t.Errorf("five requests with one token: %d token reviews, want 1", n)
	}
	for range 2 {
		if code := get("nobody"); code != http.StatusUnauthorized {
			t.Errorf("an invalid token: %d, want 401", code)
		}
	}
	if n := tokenReviews(c); n != 2 {
		t.Errorf("an invalid token twice: %d token reviews in all, want 2", n)
	}
	c.mu.Lock()
	c.revoked = true
	c.mu.Unlock()
	if code := get("alice"); code != http.StatusOK {
		t.Errorf("alice within the TTL of her review: %d, want 200 (kept)", code)
	}
	now = now.Add(10 * time.Second)
	if code := get("alice"); code != http.StatusUnauthorized {
		t.Errorf("alice's revoked token after the TTL: %d, want 401", code)
	}
	// The limiter's burst of 3 is spent (alice, nobody, alice again).
	w := do(t, s, "GET", "/api/rollouts", "", http.Header{"Authorization": {"Bearer made-up"}})
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" {
		t.Errorf("a new token past the limit: %d Retry-After %q, want 429 and 1", w.Code, w.Header().Get("Retry-After"))
	}
	if n := tokenReviews(c); n != 3 {
		t.Errorf("token reviews in all: %d, want 3 (none past the limit)", n)
	}
	if code := get("alice"); code != http.StatusUnauthorized {
		t.Errorf("alice's kept answer (invalid) past the limit: %d, want 401 from the cache", code)
	}
	for k := range cache.m {
		if string(k[:]) == "alice" {
			t.Error("the cache keeps a token itself")
		}
	}
	broken := &ReviewCache{TTL: time.Minute, Now: clock}
	r := TokenReviewer{Reviews: c.cs.AuthenticationV1().TokenReviews(), Cache: broken}
	if _, err := r.Review(t.Context(), "broken"); err == nil {
		t.Fatal("a failed review gave no error")
	}
	if len(broken.m) != 0 {
		t.Error("a failed review's answer was kept")
	}
}
