//go:build conformance

package conformance

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// scenario is manifests plus a script, written once and run under both
// controllers.
type scenario struct {
	name string
	ci   bool // part of the subset make test runs
	// skip, when set, says why the scenario cannot be compared on these
	// control planes (it still compiles and documents the case).
	skip string
	pre  string // applied before yaml (Services a Rollout references)
	yaml string // applied (server-side) into the scenario's namespace
	// steps after the initial apply; the first observation is taken when
	// initial holds.
	initial cond
	steps   []step
}

// step is one action and the condition that ends it (a settled point).
type step struct {
	name  string
	do    func(ctx context.Context, a *actor) error
	until cond
}

// cond is what must hold (on top of settled ReplicaSets) before the
// observation; the same condition on both sides.
type cond struct {
	desc string
	ok   func(r *unstructured.Unstructured) error
	// world, when set, must also hold for the namespace's objects.
	world func(w *world) error
}

// actor runs actions on one side, in the scenario's namespace.
type actor struct {
	*side
	ns string
}

func (a *actor) kubectl(ctx context.Context, stdin string, args ...string) error {
	_, err := a.run(ctx, stdin, cfg.kubectl, append([]string{"-n", a.ns}, args...)...)
	return err
}

func (a *actor) plugin(ctx context.Context, args ...string) error {
	_, err := a.run(ctx, "", cfg.plugin, append([]string{"-n", a.ns}, args...)...)
	return err
}

// trajectory is the observations of one side, one per settled point; a
// side that never reached a point ends its trajectory with the failure.
type trajectory struct {
	obs    []observation
	failed string
}

const settleTimeout = 90 * time.Second

func runScenario(t *testing.T, sc scenario) {
	if sc.skip != "" {
		t.Skip(sc.skip)
	}
	ctx := context.Background()
	ns := newNamespace(t, "c-"+sc.name)
	var sides [2]*actor
	for i, s := range []*side{rampSide, upstreamSide} {
		sides[i] = &actor{side: s, ns: ns}
	}
	all := append([]step{{name: "apply", do: func(ctx context.Context, a *actor) error {
		if sc.pre != "" {
			if err := a.kubectl(ctx, sc.pre, "apply", "--server-side", "-f", "-"); err != nil {
				return err
			}
		}
		return a.kubectl(ctx, sc.yaml, "apply", "--server-side", "-f", "-")
	}, until: sc.initial}}, sc.steps...)
	var traj [2]trajectory
	for _, st := range all {
		var wg sync.WaitGroup
		for i, a := range sides {
			if traj[i].failed != "" {
				continue
			}
			wg.Go(func() {
				o, err := a.stepTo(ctx, st)
				if err != nil {
					traj[i].failed = fmt.Sprintf("%s: %v", st.name, err)
					return
				}
				traj[i].obs = append(traj[i].obs, o)
			})
		}
		wg.Wait()
		if traj[0].failed != "" || traj[1].failed != "" {
			break
		}
	}
	// The Events, once they stopped coming, go into the last observation;
	// past the spam filter's burst on either side, which were said is no
	// longer a contract (the filter drops whatever comes later).
	var wg sync.WaitGroup
	var recorded [2]int64
	for i, a := range sides {
		if traj[i].failed != "" || len(traj[i].obs) == 0 {
			continue
		}
		wg.Go(func() {
			last := traj[i].obs[len(traj[i].obs)-1]
			last["events (reasons said)"], recorded[i] = a.settledEvents(ctx)
			if w, err := a.read(ctx, a.ns); err == nil && len(w.rollouts) > 0 {
				last["metric rollout_events_total (counted)"] = countedEvents(w.metrics, w.raceOnlyReasons())
			}
		})
	}
	wg.Wait()
	if max(recorded[0], recorded[1]) >= eventBurst {
		for i := range traj {
			if o := traj[i].obs; traj[i].failed == "" && len(o) > 0 {
				o[len(o)-1]["events (reasons said)"] = fmt.Sprintf("(not compared: %d or more Events about the Rollout on a side, past client-go's spam-filter burst)", eventBurst)
			}
		}
	}
	report(t, sc, all, traj)
	checkPlanTrajectory(t, sc, all, traj[1]) // `ramp plan` against upstream (plan_trajectory_test.go)
}

// quietReadings is how many consecutive identical observations, quietGap
// apart, make a settled point: upstream scales one ReplicaSet per pass, and
// a pass can come more than a second after the previous one settled.
const (
	quietReadings = 4
	quietGap      = 500 * time.Millisecond
)

// stepTo runs the step's action, waits for its condition and for
// quietReadings consecutive identical observations, and returns the
// observation.
func (a *actor) stepTo(ctx context.Context, st step) (observation, error) {
	if st.do != nil {
		if err := st.do(ctx, a); err != nil {
			return nil, err
		}
	}
	deadline := time.Now().Add(settleTimeout)
	var last observation
	same := 0
	var why error
	for time.Now().Before(deadline) {
		w, err := a.read(ctx, a.ns)
		if err == nil {
			why = w.ready(st.until)
		} else {
			why = err
		}
		if why == nil {
			o := w.observe(observeOpts{})
			if last != nil && maps.Equal(o, last) {
				same++
			} else {
				same = 1
			}
			if same >= quietReadings {
				maps.Copy(o, a.pluginView(ctx, w))
				return o, nil
			}
			last = o
			time.Sleep(quietGap) // polling: the quiet window between identical readings
			continue
		}
		last, same = nil, 0
		time.Sleep(150 * time.Millisecond)
	}
	if why == nil {
		why = errors.New("ready, but the readings kept changing")
	}
	return nil, fmt.Errorf("not %s after %s: %w", st.until.desc, settleTimeout, why)
}

// settledEvents reads the Events until two readings a second apart agree
// (at most 20 s) and returns their reasons and how many were recorded.
func (a *actor) settledEvents(ctx context.Context) (string, int64) {
	last, n := "(unread)", int64(0)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		w, err := a.read(ctx, a.ns)
		if err == nil {
			got := w.eventReasons()
			if got == last {
				return got, n
			}
			last, n = got, w.eventsRecorded()
		}
		time.Sleep(time.Second)
	}
	return last, n
}

// ready is the step's condition on the rollout named "app" plus settledness;
// a condition without ok (a scenario with no Rollout) holds on world alone.
func (w *world) ready(c cond) error {
	if c.ok == nil {
		if err := c.world(w); err != nil {
			return err
		}
		return w.settled()
	}
	var r *unstructured.Unstructured
	for i := range w.rollouts {
		if w.rollouts[i].GetName() == "app" {
			r = &w.rollouts[i]
		}
	}
	if r == nil {
		return errors.New("rollout app not found")
	}
	if err := c.ok(r); err != nil {
		return err
	}
	if c.world != nil {
		if err := c.world(w); err != nil {
			return err
		}
	}
	return w.settled()
}

// report compares the trajectories and fails the test on any difference not
// explained in improvements.go.
func report(t *testing.T, sc scenario, steps []step, traj [2]trajectory) {
	t.Helper()
	var unexplained, explained []string
	n := min(len(traj[0].obs), len(traj[1].obs))
	for i := 0; i < n; i++ {
		r, u := traj[0].obs[i], traj[1].obs[i]
		keys := slices.Sorted(maps.Keys(union(r, u)))
		for _, k := range keys {
			rv, rok := r[k]
			uv, uok := u[k]
			if rok == uok && rv == uv {
				continue
			}
			line := fmt.Sprintf("after %-12s %s\n      upstream: %s\n      ramp:     %s", steps[i].name, k, show(uv, uok), show(rv, rok))
			if imp := explain(sc.name, steps[i].name, k, uv, uok, rv, rok); imp != "" {
				explained = append(explained, line+"\n      (intended: "+imp+")")
			} else {
				unexplained = append(unexplained, line)
			}
		}
	}
	if traj[0].failed != traj[1].failed {
		unexplained = append(unexplained, fmt.Sprintf("trajectory ends differently\n      upstream: %s\n      ramp:     %s", orOK(traj[1].failed), orOK(traj[0].failed)))
	} else if traj[0].failed != "" {
		t.Errorf("both controllers fail the scenario itself: %s", traj[0].failed)
	}
	if len(explained) > 0 {
		t.Logf("%d intended differences:\n%s", len(explained), strings.Join(explained, "\n"))
	}
	if len(unexplained) > 0 {
		t.Errorf("%d unexplained differences (upstream is the oracle):\n%s", len(unexplained), strings.Join(unexplained, "\n"))
	}
	if testing.Verbose() && len(traj[1].obs) > 0 {
		last := traj[1].obs[len(traj[1].obs)-1]
		t.Logf("upstream's last observation:\n%s", dump(last))
	}
}

func union(a, b observation) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

func show(v string, ok bool) string {
	if !ok {
		return "(absent)"
	}
	return v
}

func orOK(s string) string {
	if s == "" {
		return "(completed)"
	}
	return s
}

func dump(o observation) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(o)) {
		fmt.Fprintf(&b, "  %s = %s\n", k, o[k])
	}
	return b.String()
}
