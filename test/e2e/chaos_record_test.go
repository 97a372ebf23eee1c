//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// chaosRecorder watches the Rollouts, pods and Services of one namespace
// and records what BenchmarkChaos judges: every pause from its startTime to
// its end, the sequence of currentStepIndex of every revision, and the
// serving pods of every Rollout.
type chaosRecorder struct {
	mu       sync.Mutex
	pauses   map[string]*pauseSpan // open pauses by rollout/hash/reason/step
	ended    []pauseSpan
	steps    stepLog
	initial  map[string]string
	problems []string // steps skipped or repeated, pauses ended early
	// availability, once armed
	armed    bool
	pods     map[string]podState
	active   map[string]string // Service name -> selected pod-template-hash
	minAvail map[string]int    // rollout -> fewest serving pods seen
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

type pauseSpan struct {
	key        string
	start      time.Time // status startTime (second resolution)
	duration   time.Duration
	early      bool
	afterStart time.Duration
}

type podState struct {
	app, hash string
	serving   bool // Ready and not terminating
}

// pauseDuration is the duration of every timed pause BenchmarkChaos writes
// (canary pause steps and blue-green autoPromotionSeconds).
const pauseDuration = 2 * time.Second

func recordChaos(ns string) *chaosRecorder {
	ctx, cancel := context.WithCancel(context.Background())
	r := &chaosRecorder{pauses: map[string]*pauseSpan{}, steps: stepLog{}, initial: map[string]string{},
		pods: map[string]podState{}, active: map[string]string{}, minAvail: map[string]int{}, cancel: cancel}
	for _, list := range []client.ObjectList{&rampv1.RolloutList{}, &corev1.PodList{}, &corev1.ServiceList{}} {
		r.wg.Add(1)
		go func(list client.ObjectList) {
			defer r.wg.Done()
			for ctx.Err() == nil { // a failed watch (API server frozen too long) starts again
				_ = watchFrom(ctx, list, ns, "", func(typ watch.EventType, obj client.Object) bool {
					r.observe(typ, obj)
					return false
				})
			}
		}(list)
	}
	return r
}

func (r *chaosRecorder) stop() { r.cancel(); r.wg.Wait() }

func (r *chaosRecorder) observe(typ watch.EventType, obj client.Object) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	switch o := obj.(type) {
	case *rampv1.Rollout:
		r.rollout(o, now)
	case *corev1.Pod:
		p := podState{app: o.Labels["app"], hash: o.Labels[hashLabel], serving: o.DeletionTimestamp == nil && podReady(o)}
		if typ == watch.Deleted {
			p.serving = false
		}
		r.pods[o.Name] = p
		r.availability(p.app)
	case *corev1.Service:
		r.active[o.Name] = o.Spec.Selector[hashLabel]
		r.availability(o.Spec.Selector["app"])
	}
}

// stepLog follows the currentStepIndex of every revision (rollout/hash):
// each must start at 0 and go up one step at a time.
type stepLog map[string]int32

// observe records idx for rev and describes a step skipped or repeated ("" if none).
func (l stepLog) observe(rev string, idx int32) string {
	last, seen := l[rev]
	if !seen || idx > last {
		l[rev] = idx
	}
	switch {
	case !seen && idx != 0:
		return fmt.Sprintf("%s: first step seen is %d, not 0 (skipped)", rev, idx)
	case seen && idx < last:
		return fmt.Sprintf("%s: step %d after %d (repeated)", rev, idx, last)
	case seen && idx > last+1:
		return fmt.Sprintf("%s: step %d after %d (skipped)", rev, idx, last)
	}
	return ""
}

// rollout checks the step sequence of the revision and opens and closes pauses.
func (r *chaosRecorder) rollout(ro *rampv1.Rollout, now time.Time) {
	s := ro.Status
	if s.CurrentPodHash == "" {
		return
	}
	if _, ok := r.initial[ro.Name]; !ok {
		r.initial[ro.Name] = s.CurrentPodHash
	}
	rev := ro.Name + "/" + s.CurrentPodHash
	if s.CurrentStepIndex != nil && s.CurrentPodHash != r.initial[ro.Name] {
		if p := r.steps.observe(rev, *s.CurrentStepIndex); p != "" {
			r.problems = append(r.problems, p)
		}
	}
	open := map[string]bool{}
	for _, pc := range s.PauseConditions {
		if pc.Reason != rampv1.PauseReasonCanaryPauseStep && pc.Reason != rampv1.PauseReasonBlueGreenPause {
			continue
		}
		key := fmt.Sprintf("%s/%s/%s", rev, pc.Reason, stepString(s.CurrentStepIndex))
		open[key] = true
		if _, ok := r.pauses[key]; !ok {
			r.pauses[key] = &pauseSpan{key: key, start: pc.StartTime.Time, duration: pauseDuration}
		}
	}
	for key, p := range r.pauses {
		if !strings.HasPrefix(key, ro.Name+"/") || open[key] {
			continue
		}
		p.afterStart = now.Sub(p.start)
		if p.afterStart < p.duration {
			p.early = true
			r.problems = append(r.problems, fmt.Sprintf("%s: pause ended %s after its startTime %s, before its %s",
				key, p.afterStart.Round(time.Millisecond), p.start.Format(time.RFC3339), p.duration))
		}
		r.ended = append(r.ended, *p)
		delete(r.pauses, key)
	}
}

// availability updates the fewest serving pods of app: a canary's ready
// pods, or for a blue-green Rollout (a Service "<app>-active") the ready
// pods its active Service selects.
func (r *chaosRecorder) availability(app string) {
	if !r.armed || app == "" {
		return
	}
	hash, blueGreen := r.active[app+"-active"]
	n := 0
	for _, p := range r.pods {
		if p.app == app && p.serving && (!blueGreen || p.hash == hash) {
			n++
		}
	}
	if m, ok := r.minAvail[app]; !ok || n < m {
		r.minAvail[app] = n
	}
}

// arm starts the availability record (once every Rollout is up).
func (r *chaosRecorder) arm() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.armed = true
}

// report is the recorder's figures and the correctness problems it saw.
type chaosReport struct {
	pauses, early     int
	shortest, longest time.Duration // pause end after startTime
	revisions         int
	minAvail          int
	minAvailApp       string
	below             []string
	problems          []string
}

func (r *chaosRecorder) report(minServing int) chaosReport {
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := chaosReport{pauses: len(r.ended), revisions: len(r.steps), problems: append([]string(nil), r.problems...), minAvail: -1}
	for i, p := range r.ended {
		if p.early {
			rep.early++
		}
		if i == 0 || p.afterStart < rep.shortest {
			rep.shortest = p.afterStart
		}
		rep.longest = max(rep.longest, p.afterStart)
	}
	apps := make([]string, 0, len(r.minAvail))
	for app := range r.minAvail {
		apps = append(apps, app)
	}
	sort.Strings(apps)
	for _, app := range apps {
		n := r.minAvail[app]
		if rep.minAvail < 0 || n < rep.minAvail {
			rep.minAvail, rep.minAvailApp = n, app
		}
		if n < minServing {
			rep.below = append(rep.below, fmt.Sprintf("%s: %d", app, n))
		}
	}
	return rep
}
