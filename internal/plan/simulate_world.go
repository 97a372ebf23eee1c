package plan

import (
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// simWorld is the cluster the simulator imagines around one Rollout, as the
// reconciler would read and write it: ReplicaSets whose pods become
// available as soon as they are asked for, AnalysisRuns and Experiments
// created Running, Services that select what the plan said, and a route
// the routers hold (and are read back holding) from the next pass on. It
// is pure: its clock only moves when its driver moves it.
type simWorld struct {
	ro   *rampv1.Rollout
	rs   map[string]*ReplicaSet // by pod-template hash
	now  time.Time
	rev  int64 // the last revision created
	runs map[string]Run
	exps map[string]Experiment
	hpas []string // HPAs targeting the Rollout
	// svc maps the Services the strategy names to the hash each selects
	// ("" for none); traffic is the route last written, read back in force.
	svc     map[string]string
	traffic *Traffic
	// heldSince is when the status in ro began to be held back
	// (Output.Hold); the simulator keeps a held status as the reconciler
	// does, as the one the next pass plans from.
	heldSince time.Time
	// lag makes the ReplicaSet controller one pass late (tests): a scaled
	// ReplicaSet shows its new spec with the old counts, Unobserved, to the
	// next pass, and its pods only after it.
	lag bool
}

// simStart is the simulator's epoch: a fixed time, so that plans replay.
var simStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newSimWorld(ro *rampv1.Rollout) *simWorld {
	return &simWorld{ro: ro, rs: map[string]*ReplicaSet{}, now: simStart}
}

// input is what the reconciler reads: the ReplicaSet of hash as New, the
// stable one, the others oldest first, and the runs, Experiments, HPAs,
// Services and route of the world.
func (w *simWorld) input(hash string) Input {
	in := Input{Rollout: w.ro, NewHash: hash, Now: w.now, Runs: w.runs, HPAs: w.hpas, Experiments: w.exps, HeldSince: w.heldSince}
	if w.svc != nil {
		in.ServiceHash = maps.Clone(w.svc)
	}
	if w.traffic != nil {
		t := *w.traffic
		in.Traffic = &t
	}
	for h, rs := range w.rs {
		switch h {
		case hash:
			in.New = rs
		case w.ro.Status.StableRS:
			in.Stable = rs
		default:
			in.Others = append(in.Others, *rs)
		}
	}
	sort.Slice(in.Others, func(i, j int) bool {
		a, b := in.Others[i], in.Others[j]
		return a.Revision < b.Revision || (a.Revision == b.Revision && a.Name < b.Name)
	})
	return in
}

// apply makes out true at once (pods available immediately) for the
// ReplicaSets, runs, Experiments and status; it reports whether anything
// changed and the runs it started and terminated, by name. out.Status gets
// the names of the runs started, as the reconciler records them.
func (w *simWorld) apply(hash string, out *Output) (changed bool, started, terminated []string) {
	for _, rs := range w.rs { // the ReplicaSet controller catches up with the last pass's scales
		if rs.Unobserved {
			rs.Unobserved = false
			rs.Replicas, rs.Ready, rs.Available = rs.Spec, rs.Spec, rs.Spec
			changed = true
		}
	}
	if out.CreateNew {
		w.rev++
		w.rs[hash] = &ReplicaSet{Name: w.ro.Name + "-" + hash, Hash: hash, Revision: w.rev, Created: w.now}
		w.scale(w.rs[hash], out.NewReplicas)
		changed = true
	}
	for _, rs := range w.rs {
		if n, ok := out.Scale[rs.Name]; ok {
			w.scale(rs, n)
			changed = true
		}
		if at, ok := out.ScaleDownAt[rs.Name]; ok {
			rs.ScaleDownAt = at
			changed = true
		}
	}
	started, terminated = w.applyRuns(hash, out)
	changed = changed || len(started)+len(terminated) > 0
	changed = w.applyExperiments(hash, out) || changed
	if !apiequality.Semantic.DeepEqual(out.Status, w.ro.Status) {
		changed = true
	}
	w.ro.Status = stored(out.Status)
	switch {
	case !out.Hold:
		w.heldSince = time.Time{}
	case w.heldSince.IsZero():
		w.heldSince = w.now
	}
	return changed, started, terminated
}

// stored is status as the API server keeps it and the next pass reads it
// back: through JSON, so times lose what their encoding drops (a
// metav1.Time its fraction of a second, a metav1.MicroTime its
// nanoseconds), as after a controller restart. A status that does not
// encode (a step plugin's raw state that is not JSON) is kept as it is.
func stored(s rampv1.RolloutStatus) rampv1.RolloutStatus {
	var back rampv1.RolloutStatus
	b, err := json.Marshal(s)
	if err != nil || json.Unmarshal(b, &back) != nil {
		return s
	}
	return back
}

// applyRoutes points the Services and the routes as out says; the routes
// are read back in force on the next pass. It reports whether anything
// changed, a route not yet read back included.
func (w *simWorld) applyRoutes(in Input, out Output) bool {
	changed := false
	for name, hash := range out.Services {
		if w.svc == nil {
			w.svc = map[string]string{}
		}
		changed = changed || w.svc[name] != hash
		w.svc[name] = hash
	}
	if out.Route != nil {
		held := in.Traffic != nil && in.Traffic.InForce && sameRoute(in.Traffic.Route, *out.Route)
		changed = changed || !held
		w.traffic = &Traffic{Route: *out.Route, InForce: true}
	}
	return changed
}

func (w *simWorld) scale(rs *ReplicaSet, n int32) {
	if w.lag && rs.Spec != n {
		rs.Spec, rs.Unobserved = n, true
		return
	}
	rs.Spec, rs.Replicas, rs.Ready, rs.Available = n, n, n, n
}

// applyRuns creates the AnalysisRuns asked for (Running) and ends the ones
// terminated (Successful), as the reconciler and the AnalysisRun
// controller would.
func (w *simWorld) applyRuns(hash string, out *Output) (started, terminated []string) {
	if w.runs == nil {
		w.runs = map[string]Run{}
	}
	for _, st := range out.StartRuns {
		name := fmt.Sprintf("%s-%s-%s", w.ro.Name, hash, st.Type)
		if st.StepIndex != nil {
			name += fmt.Sprint(*st.StepIndex)
		}
		name = firstFree(name, func(n string) bool { return w.runs[n].Name != "" })
		w.runs[name] = Run{Name: name, Type: st.Type, Hash: hash, StepIndex: st.StepIndex, Phase: rampv1.AnalysisPhaseRunning}
		out.RunStarted(st.Type, name)
		started = append(started, name)
	}
	for _, name := range out.TerminateRuns {
		run := w.runs[name]
		run.Terminating, run.Phase = true, rampv1.AnalysisPhaseSuccessful
		w.runs[name] = run
		terminated = append(terminated, name)
	}
	return started, terminated
}

// applyExperiments creates the Experiment asked for (Running) and ends the
// ones terminated (Successful, as a terminated Experiment does).
func (w *simWorld) applyExperiments(hash string, out *Output) bool {
	changed := false
	if st := out.StartExperiment; st != nil {
		if w.exps == nil {
			w.exps = map[string]Experiment{}
		}
		var rev int64
		if rs := w.rs[hash]; rs != nil {
			rev = rs.Revision
		}
		name := fmt.Sprintf("%s-%s-%d-%d", w.ro.Name, hash, rev, st.StepIndex)
		name = firstFree(name, func(n string) bool { return w.exps[n].Name != "" })
		w.exps[name] = Experiment{Name: name, Hash: hash, StepIndex: st.StepIndex, Phase: rampv1.AnalysisPhaseRunning}
		changed = true
	}
	for _, name := range out.TerminateExperiments {
		x := w.exps[name]
		x.Terminating, x.Phase = true, rampv1.AnalysisPhaseSuccessful
		w.exps[name] = x
		changed = true
	}
	return changed
}

// openGates does what a user and a passing analysis would at a point where
// nothing moves: a pause is promoted (its conditions cleared, as `promote`
// does), and every step, pre- or post-promotion AnalysisRun and every
// Experiment still Running succeeds. A background run goes on: it ends
// when the update completes. It reports what it opened, "" if nothing.
func (w *simWorld) openGates() string {
	var opened []string
	if len(w.ro.Status.PauseConditions) > 0 {
		var reasons []string
		for _, pc := range w.ro.Status.PauseConditions {
			reasons = append(reasons, string(pc.Reason))
		}
		w.ro.Status.PauseConditions = nil
		opened = append(opened, "promoted ("+strings.Join(reasons, ", ")+")")
	}
	for _, name := range sortedKeys(w.runs) {
		run := w.runs[name]
		if run.Type != RunBackground && !run.Phase.Completed() {
			run.Phase = rampv1.AnalysisPhaseSuccessful
			w.runs[name] = run
			opened = append(opened, "run "+name+" Successful")
		}
	}
	for _, name := range sortedKeys(w.exps) {
		x := w.exps[name]
		if !x.Phase.Completed() {
			x.Phase = rampv1.AnalysisPhaseSuccessful
			w.exps[name] = x
			opened = append(opened, "experiment "+name+" Successful")
		}
	}
	return strings.Join(opened, "; ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// firstFree is the first of RetryNames(name) that is not taken (the last
// when every one is).
func firstFree(name string, taken func(string) bool) string {
	for n := range RetryNames(name) {
		name = n
		if !taken(n) {
			break
		}
	}
	return name
}
