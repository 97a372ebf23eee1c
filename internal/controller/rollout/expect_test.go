package rollout

import (
	"testing"
	"time"
)

func TestExpectations(t *testing.T) {
	var e expectations
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if e.stale("ro", "10", t0) {
		t.Fatal("nothing written, yet stale")
	}
	e.wrote("ro", "10", t0)
	if !e.stale("ro", "10", t0.Add(time.Second)) {
		t.Error("cache still at the version we patched from is not stale")
	}
	if e.stale("ro", "11", t0.Add(time.Second)) {
		t.Error("cache that moved on is stale")
	}
	if e.stale("ro", "10", t0.Add(2*time.Second)) {
		t.Error("expectation not forgotten once the cache moved on")
	}
	e.wrote("rs", "5", t0)
	if e.stale("rs", "5", t0.Add(expectationTTL)) {
		t.Error("a write the cache never shows (a no-op patch) must expire")
	}

	seen := false
	e.createdRS("ro", "web-abc", t0)
	if !e.pendingCreate("ro", func(string) bool { return seen }, t0) {
		t.Error("created ReplicaSet missing from the cache is not pending")
	}
	seen = true
	if e.pendingCreate("ro", func(n string) bool { return seen && n == "web-abc" }, t0) {
		t.Error("created ReplicaSet in the cache is still pending")
	}
	e.createdRS("ro", "web-def", t0)
	if e.pendingCreate("ro", func(string) bool { return false }, t0.Add(expectationTTL)) {
		t.Error("pending creation must expire")
	}
}
