package rollout

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// expectationTTL bounds how long a pass waits for the cache to show our
// write, and is when a waiting pass asks to run again. It is a safety net,
// not a poll: the watch event that brings our write to the cache (a
// Rollout, ReplicaSet or AnalysisRun update, which SetupWithManager's For
// and Owns watches enqueue the Rollout on) wakes the Rollout at once. A
// patch that changed nothing brings no event, so wroteObj records none.
// Under load the cache may lag by many seconds; a short TTL would then let
// passes plan from the stale cache (repeating writes, losing them to
// conflicts) and a short requeue would multiply passes: issue 24 measured
// 80 % of 101k passes ending in a 5 s requeue during a mass update.
const expectationTTL = 30 * time.Second

type expected struct {
	value string
	at    time.Time
}

// expectations remember this controller's own writes until the informer
// cache shows them. A pass that would plan from a cache older than our last
// write is skipped: the watch event for that write brings the next pass.
// Without this, a pass triggered by another event replans from stale data
// and repeats writes (or loses them to resourceVersion conflicts).
type expectations struct {
	mu sync.Mutex
	// before maps an object we patched to the resourceVersion it had before
	// the patch: while the cache still holds that version, it is stale.
	before map[types.UID]expected
	// created maps a Rollout to the ReplicaSet name it just created.
	created map[types.UID]expected
}

// wrote records a write to an object whose cached resourceVersion was rv.
func (e *expectations) wrote(uid types.UID, rv string, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.before == nil {
		e.before = map[types.UID]expected{}
	}
	if len(e.before) > 1024 { // objects deleted before the cache showed our write
		for k, v := range e.before {
			if now.Sub(v.at) >= expectationTTL {
				delete(e.before, k)
			}
		}
	}
	e.before[uid] = expected{rv, now}
}

// wroteObj records a write to obj whose cached resourceVersion was before,
// unless the write changed nothing (the API server kept the version): no
// watch event would then end the wait.
func (e *expectations) wroteObj(obj client.Object, before string, now time.Time) {
	if obj.GetResourceVersion() == before {
		return
	}
	e.wrote(obj.GetUID(), before, now)
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

// stale reports whether the cached object (uid at rv) predates our write;
// once the cache has moved on it forgets the write.
func (e *expectations) stale(uid types.UID, rv string, now time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	old, ok := e.before[uid]
	if !ok {
		return false
	}
	if old.value == rv && now.Sub(old.at) < expectationTTL {
		return true
	}
	delete(e.before, uid)
	return false
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
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.before, uid)
	delete(e.created, uid)
	delete(e.created, runKey(uid))
}
