package memlimit

import (
	"context"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
)

// SoftShare is the share of the cgroup limit SetSoftLimit gives the Go
// runtime: the rest is for memory the runtime does not count (thread
// stacks outside the heap, the binary's mapped text) and for the collector
// to catch up before the kernel's OOM killer would act.
const SoftShare = 0.9

// SetSoftLimit sets the Go soft memory limit to SoftShare of limit unless
// GOMEMLIMIT is set (the operator's choice wins) or limit is 0 (none). It
// returns the limit set, 0 when it set none.
func SetSoftLimit(limit int64) int64 {
	if limit <= 0 || os.Getenv("GOMEMLIMIT") != "" {
		return 0
	}
	soft := int64(float64(limit) * SoftShare)
	debug.SetMemoryLimit(soft)
	return soft
}

// Usage is the Go runtime's memory: held is all it holds from the OS but
// what it released back (what counts toward RSS), heap its live and
// not-yet-swept heap objects.
type Usage struct {
	Held, Heap uint64
}

var samples = []metrics.Sample{
	{Name: "/memory/classes/total:bytes"},
	{Name: "/memory/classes/heap/released:bytes"},
	{Name: "/memory/classes/heap/objects:bytes"},
}

// ReadUsage samples the runtime (runtime/metrics: no stop-the-world).
func ReadUsage() Usage {
	s := make([]metrics.Sample, len(samples))
	copy(s, samples)
	metrics.Read(s)
	v := func(i int) uint64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return s[i].Value.Uint64()
	}
	return Usage{Held: v(0) - v(1), Heap: v(2)}
}

// Watcher warns when the runtime's memory nears Limit.
type Watcher struct {
	Limit int64 // bytes; 0: nothing to watch
	// Share of Limit above which a warning is logged (0: 0.8); once use is
	// below it again by a tenth of it, the next crossing warns again.
	Share    float64
	Interval time.Duration // between samples (0: 15 s)
	Read     func() Usage  // nil: ReadUsage
	Clock    clock.WithTicker
	Log      logr.Logger

	above bool
}

// Check samples once and logs a warning if use just crossed the share; it
// reports whether use is above it.
func (w *Watcher) Check() bool {
	read := w.Read
	if read == nil {
		read = ReadUsage
	}
	share := w.Share
	if share == 0 {
		share = 0.8
	}
	u := read()
	used := float64(u.Held) / float64(w.Limit)
	switch {
	case !w.above && used > share:
		w.above = true
		w.Log.Info("memory use nears the container's limit: the controller may be OOM-killed; raise the limit (docs/operations.md sizing)",
			"heldMiB", mib(u.Held), "heapMiB", mib(u.Heap), "limitMiB", mib(uint64(w.Limit)), "percent", math.Round(used*100))
	case w.above && used < share*0.9:
		w.above = false
		w.Log.Info("memory use back below the warning share of the container's limit",
			"heldMiB", mib(u.Held), "limitMiB", mib(uint64(w.Limit)), "percent", math.Round(used*100))
	}
	return w.above
}

func mib(b uint64) float64 { return math.Round(float64(b)/(1<<20)*10) / 10 }

// Start samples every Interval until ctx ends (a manager Runnable).
func (w *Watcher) Start(ctx context.Context) error {
	if w.Limit <= 0 {
		return nil
	}
	iv := w.Interval
	if iv == 0 {
		iv = 15 * time.Second
	}
	clk := w.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	t := clk.NewTicker(iv)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C():
			w.Check()
		}
	}
}

// NeedLeaderElection: every replica watches its own memory.
func (w *Watcher) NeedLeaderElection() bool { return false }
