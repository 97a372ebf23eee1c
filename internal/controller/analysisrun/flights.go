package analysisrun

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// flights are the measurements this process runs in the background, and
// the results of those that finished and wait for a pass to record them.
// At most one measurement of a metric of a run is in flight at a time; at
// most limit per provider measure at once (the others wait for a slot).
// Nothing here survives a restart: a restarted controller measures again
// whatever status says is due.
type flights struct {
	mu      sync.Mutex
	running map[flightKey]*flight
	done    map[flightKey]outcome
	slots   map[string]chan struct{}
	changed chan struct{} // closed and replaced whenever a flight ends
	base    context.Context
	stop    context.CancelFunc
	wg      sync.WaitGroup
}

// flightKey is one metric of one run.
type flightKey struct {
	run    types.UID
	metric string
}

type flight struct {
	name   types.NamespacedName
	cancel context.CancelFunc
	again  bool // a pass found the metric busy: wake the run when it ends
}

// outcome is a finished measurement waiting to be recorded.
type outcome struct {
	name types.NamespacedName
	seq  int32 // the metric's measurement number when it started (seq)
	m    rampv1.Measurement
	end  time.Time // when it really finished
}

// init makes the maps and the base context of every flight (f.mu held).
func (f *flights) init() {
	if f.running != nil {
		return
	}
	f.running, f.done, f.slots = map[flightKey]*flight{}, map[flightKey]outcome{}, map[string]chan struct{}{}
	f.changed = make(chan struct{})
	f.base, f.stop = context.WithCancel(context.Background())
}

// claim registers a flight for k unless one is running; when one is, it
// is asked to wake the run when it ends (so that the pass that found it
// busy is repeated) and claim returns nil.
func (f *flights) claim(k flightKey, name types.NamespacedName) (context.Context, *flight) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.init()
	if fl, ok := f.running[k]; ok {
		fl.again = true
		return nil, nil
	}
	ctx, cancel := context.WithCancel(f.base)
	fl := &flight{name: name, cancel: cancel}
	f.running[k] = fl
	return ctx, fl
}

// busy reports whether metric of run has a measurement in flight.
func (f *flights) busy(run types.UID, metric string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.running[flightKey{run, metric}]
	return ok
}

// slot is the semaphore of provider, of size limit.
func (f *flights) slot(provider string, limit int) chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.init()
	s, ok := f.slots[provider]
	if !ok {
		s = make(chan struct{}, limit)
		f.slots[provider] = s
	}
	return s
}

// finish ends flight fl of k. A result that changes something (keep) is
// kept for the next pass. It reports whether to wake the run: a result was
// kept, or a pass asked. A flight forgotten meanwhile (its run completed
// or was deleted) leaves nothing.
func (f *flights) finish(k flightKey, fl *flight, o outcome, keep bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	fl.cancel()
	if f.running[k] != fl {
		return false
	}
	delete(f.running, k)
	close(f.changed)
	f.changed = make(chan struct{})
	if keep {
		f.done[k] = o
	}
	return keep || fl.again
}

// results are the finished measurements of run waiting to be recorded, by
// metric.
func (f *flights) results(run types.UID) map[string]outcome {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]outcome{}
	for k, o := range f.done {
		if k.run == run {
			out[k.metric] = o
		}
	}
	return out
}

// ack drops the results of run that were written (or found stale), each
// unless a newer one replaced it.
func (f *flights) ack(run types.UID, seqs map[string]int32) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for metric, seq := range seqs {
		k := flightKey{run, metric}
		if o, ok := f.done[k]; ok && o.seq == seq {
			delete(f.done, k)
		}
	}
}

// forget cancels the flights of the run named name (with uid run, or any
// uid when run is "") and drops its results: it completed or is gone.
func (f *flights) forget(name types.NamespacedName, run types.UID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, fl := range f.running {
		if fl.name == name && (run == "" || k.run == run) {
			fl.cancel()
			delete(f.running, k)
		}
	}
	for k, o := range f.done {
		if o.name == name && (run == "" || k.run == run) {
			delete(f.done, k)
		}
	}
}

// idle reports whether the run named name has no flight running, and a
// channel closed when the next flight ends (tests wait on it).
func (f *flights) idle(name types.NamespacedName) (bool, <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.init()
	for _, fl := range f.running {
		if fl.name == name {
			return false, f.changed
		}
	}
	return true, f.changed
}

// pending reports whether the run named name has results to record.
func (f *flights) pending(name types.NamespacedName) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, o := range f.done {
		if o.name == name {
			return true
		}
	}
	return false
}

// shutdown cancels every flight (the manager is stopping).
func (f *flights) shutdown() {
	f.mu.Lock()
	f.init()
	f.stop()
	f.mu.Unlock()
}
