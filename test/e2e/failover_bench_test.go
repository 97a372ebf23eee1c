//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// failoverLease is one setting of the leader-election timings.
type failoverLease struct{ name, lease, renew, retry string }

// BenchmarkFailover: two controller replicas with leader election (their
// own --instance-id and Lease namespace) run a 4-replica canary with three
// 1 s pauses; when the update reaches its first pause the leader is
// SIGKILLed, so it does not release its Lease. It prints, from the kill, when
// the standby took the Lease, when the next step happened and when the
// Rollout was Healthy, every currentStepIndex the revision went through and
// the startTimes the killed pause had; once with the default timings and
// once with the fast setting docs/operations.md documents. It fails only
// when a step is skipped or repeated; times are printed, never asserted.
func BenchmarkFailover(b *testing.B) {
	for _, l := range []failoverLease{
		{name: "lease-15s-renew-10s-retry-2s", lease: "15s", renew: "10s", retry: "2s"},
		{name: "lease-4s-renew-3s-retry-500ms", lease: "4s", renew: "3s", retry: "500ms"},
	} {
		b.Run(l.name, func(b *testing.B) { benchFailover(b, l) })
	}
}

func benchFailover(b *testing.B, l failoverLease) {
	const name, replicas, pauseStep = "web", 4, 1
	ns := namespace(b, "failover")
	args := []string{"--instance-id", ns, "--leader-election-lease-duration", l.lease,
		"--leader-election-renew-deadline", l.renew, "--leader-election-retry-period", l.retry}
	live := []*controllerProcess{startReplica(b, ns, args), startReplica(b, ns, args)}
	apply(b, ns, rolloutYAML{name: name, replicas: replicas, instance: ns, canary: `steps:
- setWeight: 25
- pause: {duration: 1s}
- setWeight: 50
- pause: {duration: 1s}
- setWeight: 75
- pause: {duration: 1s}`}.String())
	old := waitHealthy(b, ns, name, "", replicas).Status.CurrentPodHash
	var leading, nextStep, toHealthy time.Duration
	for i := 0; i < b.N; i++ {
		leader, standby := leaderOf(b, live)
		rec := recordFailover(ns, name, "ramp-controller-"+ns, old, pauseStep, replicas)
		setImageDirect(b, ns, name, fmt.Sprintf("registry.example/app:v%d", i+2))
		rec.wait(b, rec.paused, "the update paused on step 1")
		if err := leader.cmd.Process.Kill(); err != nil { // SIGKILL: the Lease is not released
			b.Fatal(err)
		}
		killed := time.Now()
		_ = leader.cmd.Wait() // killed: its exit status says nothing
		rec.wait(b, rec.healthy, "Healthy on the new revision after the kill")
		rec.stop()
		f := rec.figures(killed)
		if len(f.problems) > 0 {
			b.Fatalf("failover %d: %s (steps seen %v)", i+1, strings.Join(f.problems, "; "), f.steps)
		}
		if f.leading == 0 {
			b.Logf("failover %d: the Lease never changed holder after the kill (holders seen %v)", i+1, rec.holders)
		}
		b.Logf("failover %d (lease %s, renew %s, retry %s): SIGKILL of the leader on step %d; standby leading %s later, next step %s, Healthy %s",
			i+1, l.lease, l.renew, l.retry, pauseStep, f.leading.Round(10*time.Millisecond), f.nextStep.Round(10*time.Millisecond), f.healthy.Round(10*time.Millisecond))
		b.Logf("failover %d: steps seen %v; startTimes of the killed pause %v (kept: %v); it ended %s after its startTime (second resolution)",
			i+1, f.steps, f.pauseStarts, len(f.pauseStarts) == 1, f.pauseLasted.Round(10*time.Millisecond))
		leading, nextStep, toHealthy = leading+f.leading, nextStep+f.nextStep, toHealthy+f.healthy
		old = f.hash
		live = []*controllerProcess{standby, startReplica(b, ns, args)}
	}
	n := float64(b.N)
	b.ReportMetric(leading.Seconds()/n, "s-kill-to-leading/op")
	b.ReportMetric(nextStep.Seconds()/n, "s-kill-to-next-step/op")
	b.ReportMetric(toHealthy.Seconds()/n, "s-kill-to-healthy/op")
}

// startReplica starts one controller replica electing its leader through a
// Lease in ns and waits until it is ready (caches synced, leading or not).
func startReplica(b *testing.B, ns string, args []string) *controllerProcess {
	b.Helper()
	p, err := startController(ns, args...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.stop)
	eventually(b, 60*time.Second, "replica ready", p.ready)
	return p
}

// leaderOf waits until exactly one of the replicas leads and returns it and
// the other one.
func leaderOf(b *testing.B, replicas []*controllerProcess) (leader, standby *controllerProcess) {
	b.Helper()
	eventually(b, 60*time.Second, "exactly one replica leading", func() error {
		leader, standby = nil, nil
		for _, p := range replicas {
			ok, err := p.isLeader()
			switch {
			case err != nil:
				return err
			case ok && leader != nil:
				return fmt.Errorf("two leaders")
			case ok:
				leader = p
			default:
				standby = p
			}
		}
		if leader == nil || standby == nil {
			return fmt.Errorf("no leader yet")
		}
		return nil
	})
	return leader, standby
}

// failoverRecorder watches one Rollout and the Lease of its controllers and
// stamps what BenchmarkFailover measures with the time it was seen.
type failoverRecorder struct {
	mu                  sync.Mutex
	lease, old, hash    string
	pauseStep, replicas int32
	log                 stepLog
	steps               []int32
	stepAt              []time.Time
	problems            []string
	pauseStarts         []string // distinct startTimes of the pause on pauseStep
	pauseStart          time.Time
	holders             []holderSeen
	healthyAt           time.Time
	paused, healthy     chan struct{} // closed when first seen
	cancel              context.CancelFunc
	wg                  sync.WaitGroup
}

type holderSeen struct {
	at     time.Time
	holder string
}

func recordFailover(ns, name, lease, old string, pauseStep, replicas int32) *failoverRecorder {
	ctx, cancel := context.WithCancel(context.Background())
	r := &failoverRecorder{lease: lease, old: old, pauseStep: pauseStep, replicas: replicas, log: stepLog{},
		paused: make(chan struct{}), healthy: make(chan struct{}), cancel: cancel}
	for _, list := range []client.ObjectList{&rampv1.RolloutList{}, &coordinationv1.LeaseList{}} {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			for ctx.Err() == nil { // a failed watch starts again
				_ = watchFrom(ctx, list, ns, "", func(_ watch.EventType, obj client.Object) bool {
					r.observe(name, obj, time.Now())
					return false
				})
			}
		}()
	}
	return r
}

func (r *failoverRecorder) stop() { r.cancel(); r.wg.Wait() }

// wait waits for ch to be closed, for at most 3 minutes.
func (r *failoverRecorder) wait(b *testing.B, ch chan struct{}, what string) {
	b.Helper()
	select {
	case <-ch:
	case <-time.After(3 * time.Minute):
		r.mu.Lock()
		defer r.mu.Unlock()
		b.Fatalf("%s: not seen after 3m; steps seen %v, Lease holders %v", what, r.steps, r.holders)
	}
}

func (r *failoverRecorder) observe(name string, obj client.Object, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch o := obj.(type) {
	case *coordinationv1.Lease:
		if o.Name == r.lease && o.Spec.HolderIdentity != nil &&
			(len(r.holders) == 0 || r.holders[len(r.holders)-1].holder != *o.Spec.HolderIdentity) {
			r.holders = append(r.holders, holderSeen{at: now, holder: *o.Spec.HolderIdentity})
		}
	case *rampv1.Rollout:
		if o.Name == name {
			r.rollout(o, now)
		}
	}
}

// rollout records the new revision's steps, its pause on pauseStep and
// when it is Healthy.
func (r *failoverRecorder) rollout(ro *rampv1.Rollout, now time.Time) {
	s := ro.Status
	if s.CurrentPodHash == "" || s.CurrentPodHash == r.old || s.CurrentStepIndex == nil {
		return
	}
	r.hash = s.CurrentPodHash
	idx := *s.CurrentStepIndex
	if p := r.log.observe(s.CurrentPodHash, idx); p != "" {
		r.problems = append(r.problems, p)
	}
	if len(r.steps) == 0 || r.steps[len(r.steps)-1] != idx {
		r.steps, r.stepAt = append(r.steps, idx), append(r.stepAt, now)
	}
	if pausedAt(r.pauseStep)(ro) == nil {
		start := s.PauseConditions[0].StartTime
		if t := start.UTC().Format(time.RFC3339); len(r.pauseStarts) == 0 || r.pauseStarts[len(r.pauseStarts)-1] != t {
			r.pauseStarts = append(r.pauseStarts, t)
		}
		if r.pauseStart.IsZero() {
			r.pauseStart = start.Time
			close(r.paused)
		}
	}
	if !r.pauseStart.IsZero() && r.healthyAt.IsZero() && healthy(r.replicas, "")(ro) == nil {
		r.healthyAt = now
		close(r.healthy)
	}
}

// failoverFigures are the times from the kill and what was seen.
type failoverFigures struct {
	leading, nextStep, healthy, pauseLasted time.Duration
	steps                                   []int32
	pauseStarts, problems                   []string
	hash                                    string
}

func (r *failoverRecorder) figures(killed time.Time) failoverFigures {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := failoverFigures{healthy: r.healthyAt.Sub(killed), steps: r.steps, pauseStarts: r.pauseStarts, hash: r.hash,
		problems: append([]string(nil), r.problems...)}
	for i, h := range r.holders {
		if i > 0 && h.at.After(killed) {
			f.leading = h.at.Sub(killed)
			break
		}
	}
	for i, idx := range r.steps {
		if idx > r.pauseStep && r.stepAt[i].After(killed) {
			f.nextStep, f.pauseLasted = r.stepAt[i].Sub(killed), r.stepAt[i].Sub(r.pauseStart)
			break
		}
	}
	return f
}
