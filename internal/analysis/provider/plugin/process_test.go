package plugin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRestartBackoff: a plugin that fails at every start is started again
// at once after its first failure, then only after 1s, 2s, ... (by the
// injected clock), not by every measurement; the error says until when.
func TestRestartBackoff(t *testing.T) {
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	bin := filepath.Join(dir, "crash")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho x >> "+starts+"\nexit 1\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	p := New("ramp/fake", bin, nil)
	p.proc.now = func() time.Time { return now }
	t.Cleanup(p.Stop)
	count := func() int {
		b, _ := os.ReadFile(starts)
		return strings.Count(string(b), "x")
	}
	for i, step := range []struct {
		advance time.Duration
		starts  int
		backoff string // in the error when no start was made
	}{
		{0, 1, ""},
		{0, 2, ""}, // a first failure is retried at once
		{0, 2, "failed 2 times in a row, not started again before 2026-03-01T12:00:01Z"},
		{time.Second, 3, ""},
		{time.Second, 3, "failed 3 times in a row, not started again before 2026-03-01T12:00:03Z"},
		{time.Second, 4, ""},
	} {
		now = now.Add(step.advance)
		_, err := p.Measure(context.Background(), fakeRequest(`{}`))
		if err == nil {
			t.Fatalf("measurement %d: no error from a crashing plugin", i)
		}
		if got := count(); got != step.starts {
			t.Fatalf("measurement %d: %d starts, want %d (error %v)", i, got, step.starts, err)
		}
		if step.backoff != "" && !strings.Contains(err.Error(), step.backoff) {
			t.Fatalf("measurement %d: error %v, want %q", i, err, step.backoff)
		}
	}
}

// TestStartErrorHidesOutput: a binary that prints something else than
// go-plugin's handshake gives an error that says so without quoting its
// output (go-plugin's own error quotes the line).
func TestStartErrorHidesOutput(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "chatty")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho TOKEN=hunter2\nexec sleep 5\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	p := New("ramp/fake", bin, nil)
	t.Cleanup(p.Stop)
	_, err := p.Measure(context.Background(), fakeRequest(`{}`))
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "does not start with go-plugin's handshake") {
		t.Fatalf("error %v, want one about the handshake without the plugin's output", err)
	}
}

// TestHungPluginRestarted: after maxTimeouts calls in a row cut by their
// context, the plugin is taken as hung and the next measurement runs in a
// new process; fewer keep the process.
func TestHungPluginRestarted(t *testing.T) {
	p := startFake(t)
	pid := func() string {
		t.Helper()
		res, err := p.Measure(context.Background(), fakeRequest(`{"phase":"Successful"}`))
		if err != nil || res.Metadata["pid"] == "" {
			t.Fatalf("measurement: %+v, %v", res, err)
		}
		return res.Metadata["pid"]
	}
	hang := func(n int) {
		t.Helper()
		for range n {
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			_, err := p.Measure(ctx, fakeRequest(`{"phase":"Successful","sleepMS":3000}`))
			cancel()
			if err == nil {
				t.Fatal("a call past its deadline succeeded")
			}
		}
	}
	first := pid()
	hang(maxTimeouts - 1)
	if second := pid(); second != first { // the success also resets the count
		t.Fatalf("%d timeouts restarted the plugin (pid %s, then %s)", maxTimeouts-1, first, second)
	}
	hang(maxTimeouts)
	if third := pid(); third == first {
		t.Fatalf("the plugin (pid %s) still serves after %d timeouts in a row", first, maxTimeouts)
	}
}
