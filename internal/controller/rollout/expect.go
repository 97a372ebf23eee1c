package rollout

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/ramp-rollouts/ramp/internal/controller/cachelag"
)

// expectationTTL is how long a pass waits for the cache to show our write
// (cachelag.TTL): the safety-net requeue of a waiting pass.
const expectationTTL = cachelag.TTL

type expected struct {
	value string
	at    time.Time
}

// expectations remember this controller's own writes until the informer
// cache shows them (cachelag.Writes), and the ReplicaSets and runs a
// Rollout just created until the cache lists them. A pass that would plan
// from a cache older than our last write is skipped: the watch event for
// that write brings the next pass.
type expectations struct {
	cachelag.Writes
	mu sync.Mutex
	// created maps a Rollout to the ReplicaSet name it just created.
	created map[types.UID]expected
}

// createdRS records that rollout uid created the named ReplicaSet.
func (e *expectations) createdRS(uid types.UID, name string, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.created == nil {
		e.created = map[types.UID]expected{}
	}
	e.created[uid] = expected{name, now}
}

// pendingCreate reports whether rollout uid created a ReplicaSet the cache
// does not show yet (seen lists the names the cache shows).
func (e *expectations) pendingCreate(uid types.UID, seen func(name string) bool, now time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.created[uid]
	if !ok {
		return false
	}
	if seen(c.value) || now.Sub(c.at) >= expectationTTL {
		delete(e.created, uid)
		return false
	}
	return true
}

// forget drops everything known about a Rollout (it was deleted).
func (e *expectations) forget(uid types.UID) {
	e.Forget(uid)
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.created, uid)
	delete(e.created, runKey(uid))
}
