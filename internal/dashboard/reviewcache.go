package dashboard

import (
	"crypto/sha256"
	"errors"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// errReviewsBusy is a token review refused because too many tokens the
// dashboard did not know were presented at once: 429, try again.
var errReviewsBusy = errors.New("too many token reviews at once: try again in a second")

// reviewTTL is how long a token review's answer is kept: as long as a
// SubjectAccessReview's decision (a revocation takes effect within it).
const reviewTTL = 10 * time.Second

// newTokenReviews is how many reviews of tokens not held may be sent per
// second (twice that at once).
const newTokenReviews = 20

// maxReviewsKept bounds the review cache; past it, answers are not kept.
const maxReviewsKept = 10000

// ReviewCache keeps token reviews' answers for TTL, keyed by the SHA-256
// of the token (the token itself is not kept), so that a browser's
// requests cost one TokenReview per TTL, not one each, and bounds the
// reviews of tokens it does not hold to Limit: a client sending made-up
// tokens cannot turn the dashboard into a load on the API server. A
// revoked token is refused at most TTL after the revocation, as a
// SubjectAccessReviewer's decisions are.
type ReviewCache struct {
	TTL   time.Duration
	Now   func() time.Time
	Limit *rate.Limiter

	mu sync.Mutex
	m  map[[32]byte]review
}

type review struct {
	user  User
	err   error // nil or errTokenInvalid
	until time.Time
}

func reviewKey(token string, audiences []string) [32]byte {
	return sha256.Sum256([]byte(token + "\x00" + strings.Join(audiences, "\x00")))
}

// get is the kept answer for key, if still valid.
func (c *ReviewCache) get(key [32]byte) (review, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[key]
	if !ok || !c.Now().Before(r.until) {
		return review{}, false
	}
	return r, true
}

// allow says whether a review of a token not held may be sent now.
func (c *ReviewCache) allow() bool { return c.Limit == nil || c.Limit.Allow() }

// put keeps an answer (a user, or errTokenInvalid) for TTL.
func (c *ReviewCache) put(key [32]byte, u User, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.Now()
	if c.m == nil {
		c.m = map[[32]byte]review{}
	}
	if len(c.m) >= maxReviewsKept {
		for k, r := range c.m {
			if !now.Before(r.until) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= maxReviewsKept {
			return
		}
	}
	c.m[key] = review{user: u, err: err, until: now.Add(c.TTL)}
}
