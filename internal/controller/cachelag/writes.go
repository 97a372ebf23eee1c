// Package cachelag remembers a controller's own writes until its informer
// cache shows them, so that a pass never plans from a cached object older
// than what it last wrote. Without it, a pass woken by some other event
// replans from the stale copy and repeats its writes (or loses them to
// resourceVersion conflicts), or repeats side effects such as a
// measurement that was already recorded.
package cachelag

import (
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TTL bounds how long a pass waits for the cache to show a write, and is
// when a waiting pass asks to run again. It is a safety net, not a poll:
// the watch event that brings the write to the cache wakes the object at
// once. A patch that changed nothing brings no event, so WroteObj records
// none. Under load the cache may lag by many seconds; a short TTL would
// then let passes plan from the stale cache and a short requeue would
// multiply passes: issue 24 measured 80 % of 101k passes ending in a 5 s
// requeue during a mass update.
const TTL = 30 * time.Second

// maxKept is the size beyond which entries older than TTL are swept
// (objects deleted before the cache showed the write).
const maxKept = 1024

// maxChain bounds the versions kept for one object: the writes of one pass
// in a row (a Rollout's annotation, then its status) are a handful.
const maxChain = 8

type entry struct {
	rvs []string // the versions written over, oldest first
	at  time.Time
}

// Writes maps each object written to the resourceVersions it had before
// our writes: while the cache still holds one of them, it is stale. Writes
// in a row (each made from the version the previous one returned) add to
// the chain, so a cache that shows only the first of them is stale too.
// The zero value is ready to use and safe for concurrent use.
type Writes struct {
	mu     sync.Mutex
	before map[types.UID]entry
}

// Wrote records a write to the object uid whose cached resourceVersion was
// rv.
func (w *Writes) Wrote(uid types.UID, rv string, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.before == nil {
		w.before = map[types.UID]entry{}
	}
	if len(w.before) > maxKept {
		for k, v := range w.before {
			if now.Sub(v.at) >= TTL {
				delete(w.before, k)
			}
		}
	}
	e := w.before[uid]
	if e.at.IsZero() || now.Sub(e.at) >= TTL {
		e.rvs = nil
	}
	if !slices.Contains(e.rvs, rv) {
		e.rvs = append(e.rvs, rv)
		if len(e.rvs) > maxChain {
			e.rvs = e.rvs[len(e.rvs)-maxChain:]
		}
	}
	w.before[uid] = entry{e.rvs, now}
}

// WroteObj records a write to obj whose cached resourceVersion was before,
// unless the write changed nothing (the API server kept the version): no
// watch event would then end the wait.
func (w *Writes) WroteObj(obj client.Object, before string, now time.Time) {
	if obj.GetResourceVersion() == before {
		return
	}
	w.Wrote(obj.GetUID(), before, now)
}

// Stale reports whether the cached object (uid at rv) predates a write of
// ours; once the cache has moved on (or TTL passed) the write is
// forgotten.
func (w *Writes) Stale(uid types.UID, rv string, now time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	old, ok := w.before[uid]
	if !ok {
		return false
	}
	if slices.Contains(old.rvs, rv) && now.Sub(old.at) < TTL {
		return true
	}
	delete(w.before, uid)
	return false
}

// Forget drops what is known of uid (it was deleted).
func (w *Writes) Forget(uid types.UID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.before, uid)
}

// Len is the number of writes remembered (tests check nothing leaks).
func (w *Writes) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.before)
}
