package cachelag

import (
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestWrites(t *testing.T) {
	var w Writes
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if w.Stale("ro", "10", t0) {
		t.Fatal("nothing written, yet stale")
	}
	w.Wrote("ro", "10", t0)
	if !w.Stale("ro", "10", t0.Add(time.Second)) {
		t.Error("cache still at the version we patched from is not stale")
	}
	if w.Stale("ro", "11", t0.Add(time.Second)) {
		t.Error("cache that moved on is stale")
	}
	if w.Stale("ro", "10", t0.Add(2*time.Second)) || w.Len() != 0 {
		t.Error("write not forgotten once the cache moved on")
	}
	w.Wrote("rs", "5", t0)
	if w.Stale("rs", "5", t0.Add(TTL)) {
		t.Error("a write the cache never shows must expire")
	}
	same := &corev1.Service{ObjectMeta: metav1.ObjectMeta{UID: "svc", ResourceVersion: "7"}}
	w.WroteObj(same, "7", t0)
	if w.Stale("svc", "7", t0) {
		t.Error("a write that changed nothing (same resourceVersion) left a wait for an event that never comes")
	}
	w.Wrote("gone", "3", t0)
	w.Forget("gone")
	if w.Stale("gone", "3", t0) {
		t.Error("forgotten write still waited for")
	}
	for i := range maxKept + 2 {
		w.Wrote(uid(i), "1", t0)
	}
	w.Wrote("late", "1", t0.Add(TTL))
	if n := w.Len(); n > 2 {
		t.Errorf("%d writes kept after a sweep past TTL, want those of deleted objects dropped", n)
	}
}

func uid(i int) types.UID { return types.UID(strconv.Itoa(i)) }

// TestWritesInARow: two writes of one pass in a row (a Rollout's revision
// annotation from version 10, then its status from 11, the version the
// first returned): a cache that shows only the first version is stale too,
// as is one that shows the second; the version after both is not. Before,
// the second write replaced the first and a pass planned from version 10.
func TestWritesInARow(t *testing.T) {
	var w Writes
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w.Wrote("ro", "10", t0)
	w.Wrote("ro", "11", t0)
	for _, rv := range []string{"10", "11"} {
		if !w.Stale("ro", rv, t0.Add(time.Second)) {
			t.Errorf("cache at %s, written over by us in a row, is not stale", rv)
		}
	}
	if w.Stale("ro", "12", t0.Add(time.Second)) || w.Len() != 0 {
		t.Error("cache past both writes is stale, or the chain not forgotten")
	}
	for i := range 3 * maxChain {
		w.Wrote("long", strconv.Itoa(i), t0)
	}
	if w.Stale("long", "0", t0) {
		t.Errorf("the chain keeps more than %d versions", maxChain)
	}
	w.Wrote("old", "1", t0)
	w.Wrote("old", "2", t0.Add(TTL))
	if w.Stale("old", "1", t0.Add(TTL)) {
		t.Error("a version from a write older than TTL is still in the chain")
	}
}
