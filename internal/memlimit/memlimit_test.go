package memlimit

import (
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
)

// TestLimit: the limit read from fake cgroup v2 and v1 files; "max", v1's
// unlimited value and no file mean none; a file that is not a number is an
// error naming it.
func TestLimit(t *testing.T) {
	for _, c := range []struct {
		name, file, value string
		want              int64
		err               string
	}{
		{"v2", v2File, "268435456\n", 256 << 20, ""},
		{"v2 unlimited", v2File, "max\n", 0, ""},
		{"v1", v1File, "536870912\n", 512 << 20, ""},
		{"v1 unlimited", v1File, "9223372036854771712\n", 0, ""},
		{"none", "", "", 0, ""},
		{"garbage", v2File, "lots\n", 0, `memory.max: "lots" is not a byte count`},
		{"negative", v1File, "-1\n", 0, `memory.limit_in_bytes: "-1" is not a byte count`},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if c.file != "" {
				path := filepath.Join(root, c.file)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(c.value), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Limit(root)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("Limit = %d, %v; want %d", got, err, c.want)
			}
		})
	}
}

// TestLimitPrefersV2: a host with both hierarchies mounted reads v2.
func TestLimitPrefersV2(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	for file, v := range map[string]string{v2File: "1048576", v1File: "2097152"} {
		if err := os.WriteFile(filepath.Join(root, file), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := Limit(root); err != nil || got != 1<<20 {
		t.Errorf("Limit = %d, %v; want the v2 value %d", got, err, 1<<20)
	}
}

// TestWatcherWarnsOncePerCrossing: one warning, with the figures, when use
// crosses 80 % of the limit; none while it stays above; one more after it
// fell back below and crossed again.
func TestWatcherWarnsOncePerCrossing(t *testing.T) {
	var logs []string
	held := uint64(0)
	w := &Watcher{Limit: 100 << 20, Read: func() Usage { return Usage{Held: held, Heap: held / 2} },
		Log: funcr.New(func(prefix, args string) { logs = append(logs, args) }, funcr.Options{})}
	warnings := func() int {
		n := 0
		for _, l := range logs {
			if strings.Contains(l, "nears the container's limit") {
				n++
			}
		}
		return n
	}
	for _, step := range []struct {
		heldMiB  uint64
		above    bool
		warnings int
	}{
		{50, false, 0}, {79, false, 0}, {81, true, 1}, {95, true, 1}, {75, true, 1}, // 75 > 72: not yet back
		{70, false, 1}, {85, true, 2},
	} {
		held = step.heldMiB << 20
		if got := w.Check(); got != step.above {
			t.Errorf("%d MiB of 100: above %v, want %v", step.heldMiB, got, step.above)
		}
		if got := warnings(); got != step.warnings {
			t.Fatalf("%d MiB of 100: %d warnings, want %d (logs %q)", step.heldMiB, got, step.warnings, logs)
		}
	}
	if !strings.Contains(logs[0], `"heldMiB"=81`) || !strings.Contains(logs[0], `"limitMiB"=100`) || !strings.Contains(logs[0], `"percent"=81`) {
		t.Errorf("warning without its figures: %s", logs[0])
	}
}

// TestSetSoftLimit: 90 % of the cgroup limit unless GOMEMLIMIT is set or
// there is no limit.
func TestSetSoftLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	t.Cleanup(func() { debug.SetMemoryLimit(math.MaxInt64) }) // as it was: no limit
	if got := SetSoftLimit(0); got != 0 {
		t.Errorf("no limit: set %d", got)
	}
	if got, want := SetSoftLimit(1000<<20), int64(900<<20); got != want {
		t.Errorf("set %d, want %d", got, want)
	}
	t.Setenv("GOMEMLIMIT", "512MiB")
	if got := SetSoftLimit(1000 << 20); got != 0 {
		t.Errorf("GOMEMLIMIT set, yet set %d", got)
	}
}

// TestReadUsage: the runtime's figures are read and plausible.
func TestReadUsage(t *testing.T) {
	u := ReadUsage()
	if u.Heap == 0 || u.Held < u.Heap {
		t.Errorf("usage %+v: heap objects must be > 0 and within what is held", u)
	}
}
