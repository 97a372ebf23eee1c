package plan

import (
	"fmt"
	"math"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// forecastHorizon: a requeue further away than this is the (disabled)
// progress deadline, not a pause or a delay the forecast waits for.
const forecastHorizon = 365 * 24 * time.Hour

// Hashes of the imagined ReplicaSets of a forecast.
const (
	forecastStable = "stable"
	forecastCanary = "canary"
)

// forecastWorld is the cluster a routed forecast imagines: pods are
// available as soon as they are asked for, every route and Service write is
// read back on the next pass, every pause is promoted, every analysis and
// Experiment succeeds, and time jumps to the next requeue when nothing
// moves. The real planner (Canary) runs in it, so the forecast is what the
// controller does.
type forecastWorld struct {
	ro          *rampv1.Rollout
	rs          map[string]*ReplicaSet // by hash
	svc         map[string]string
	route       traffic.Route
	runs        map[string]Run
	experiments map[string]Experiment
	hpas        []string
	now         time.Time
}

func newForecastWorld(ro *rampv1.Rollout, n int32, hpa bool) *forecastWorld {
	ro = ro.DeepCopy()
	ro.Spec.Replicas, ro.Spec.Paused = &n, false
	// No progress deadline: a step that cannot complete stalls the forecast
	// instead of timing out.
	ro.Spec.ProgressDeadlineSeconds, ro.Spec.ProgressDeadlineAbort = ptrTo(int32(math.MaxInt32)), false
	ro.Status = rampv1.RolloutStatus{StableRS: forecastStable, CurrentPodHash: forecastStable,
		CurrentStepIndex: ptrTo(int32(len(ro.Spec.Strategy.Canary.Steps)))}
	c := ro.Spec.Strategy.Canary
	w := &forecastWorld{ro: ro, now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		rs:    map[string]*ReplicaSet{forecastStable: {Name: "stable", Hash: forecastStable, Revision: 1}},
		svc:   map[string]string{c.StableService: forecastStable, c.CanaryService: forecastStable},
		route: traffic.Route{Max: c.MaxTrafficWeight(), StableHash: forecastStable, CanaryHash: forecastStable},
		runs:  map[string]Run{}, experiments: map[string]Experiment{}}
	w.scale(w.rs[forecastStable], n)
	if hpa {
		w.hpas = []string{"hpa"}
	}
	return w
}

func (w *forecastWorld) scale(rs *ReplicaSet, n int32) {
	rs.Spec, rs.Replicas, rs.Ready, rs.Available = n, n, n, n
}

// sizes are the canary's and the previous stable's pods.
func (w *forecastWorld) sizes() (canary, stable int32) {
	if rs := w.rs[forecastCanary]; rs != nil {
		canary = rs.Spec
	}
	return canary, w.rs[forecastStable].Spec
}

// pass plans once and makes the plan true; it reports whether anything
// changed and the requeue the plan asked for.
func (w *forecastWorld) pass() (bool, time.Duration) {
	in := Input{Rollout: w.ro, NewHash: forecastCanary, Now: w.now, ServiceHash: w.svc, HPAs: w.hpas,
		Traffic: &Traffic{Route: w.route, InForce: true}, Runs: w.runs, Experiments: w.experiments}
	for h, rs := range w.rs {
		switch {
		case h == forecastCanary:
			in.New = rs
		case h == w.ro.Status.StableRS:
			in.Stable = rs
		default:
			in.Others = append(in.Others, *rs)
		}
	}
	out := Canary(in)
	changed := out.CreateNew || len(out.Scale) > 0 || len(out.StartRuns) > 0 || out.StartExperiment != nil
	if out.CreateNew {
		w.rs[forecastCanary] = &ReplicaSet{Name: "canary", Hash: forecastCanary, Revision: 2}
		w.scale(w.rs[forecastCanary], out.NewReplicas)
	}
	for _, rs := range w.rs {
		if n, ok := out.Scale[rs.Name]; ok {
			w.scale(rs, n)
		}
		if at, ok := out.ScaleDownAt[rs.Name]; ok {
			rs.ScaleDownAt, changed = at, true
		}
	}
	for _, s := range out.StartRuns {
		name := fmt.Sprintf("run-%d", len(w.runs))
		run := Run{Name: name, Type: s.Type, Hash: forecastCanary, StepIndex: s.StepIndex, Phase: rampv1.AnalysisPhaseSuccessful}
		ref := &rampv1.RolloutAnalysisRunStatus{Name: name, Status: rampv1.AnalysisPhasePending}
		switch s.Type {
		case RunStep:
			out.Status.Canary.CurrentStepAnalysisRunStatus = ref
		case RunBackground: // runs until the update completes
			out.Status.Canary.CurrentBackgroundAnalysisRunStatus, run.Phase = ref, rampv1.AnalysisPhaseRunning
		}
		w.runs[name] = run
	}
	for _, name := range out.TerminateRuns {
		run := w.runs[name]
		run.Terminating, run.Phase, changed = true, rampv1.AnalysisPhaseSuccessful, true
		w.runs[name] = run
	}
	if s := out.StartExperiment; s != nil {
		name := fmt.Sprintf("experiment-%d", s.StepIndex)
		w.experiments[name] = Experiment{Name: name, Hash: forecastCanary, StepIndex: s.StepIndex, Phase: rampv1.AnalysisPhaseSuccessful}
	}
	for name, hash := range out.Services {
		changed = changed || w.svc[name] != hash
		w.svc[name] = hash
	}
	if out.Route != nil && !sameRoute(*out.Route, w.route) {
		w.route, changed = *out.Route, true
	}
	if !apiequality.Semantic.DeepEqual(out.Status, w.ro.Status) {
		w.ro.Status, changed = out.Status, true
	}
	return changed, out.RequeueAfter
}

// settled is where a step's ReplicaSets and route stand.
type settled struct{ canary, stable, traffic int32 }

func (w *forecastWorld) settled() settled {
	c, s := w.sizes()
	return settled{canary: c, stable: s, traffic: w.route.Canary}
}

// forecastRouted walks the steps of a traffic-routed canary through the
// planner: each step's row is where the ReplicaSets and the route stand when
// the planner moves past it (a pause is promoted once nothing moves), with
// the most pods at once on the way into it; a step nothing moves past
// stalls the forecast there. The complete row is the hand-over: the
// previous stable goes to 0 after scaleDownDelaySeconds, or already as the
// stable Service leaves it when only dynamicStableScale shrank it.
func forecastRouted(f *CanaryForecast, ro *rampv1.Rollout, hpa bool) {
	c := ro.Spec.Strategy.Canary
	f.Routed, f.FromStable = true, hpa && !ro.HPAAccountingSurge()
	f.Dynamic = f.FromStable || c.DynamicStableScale
	if f.FromStable {
		f.MinPods = min(c.MinPodsPerReplicaSetOrDefault(), f.Replicas)
	}
	w := newForecastWorld(ro, f.Replicas, hpa)
	steps := len(c.Steps)
	var peak int32
	var rounds int
	record := func(i int, at settled, stalled bool) {
		st := ForecastStep{Index: i, Step: stepText(c.Steps[i]), Gate: stepGate(c.Steps[i]), Weight: weightAt(c.Steps, int32(i)),
			Canary: at.canary, Stable: at.stable, Traffic: at.traffic, Peak: peak, Rounds: rounds, Stalled: stalled}
		st.Upstream = upstreamPods(f, st.Weight, at.canary, c.DynamicStableScale)
		f.Steps = append(f.Steps, st)
		peak, rounds = 0, 0
	}
	handedOver, delay := false, time.Duration(0)
	for limit := 0; limit < 10000; limit++ {
		at, idx := w.settled(), int(*w.ro.Status.CurrentStepIndex)
		started := w.rs[forecastCanary] != nil
		changed, requeue := w.pass()
		after := w.settled()
		if started {
			for i := idx; i < min(int(*w.ro.Status.CurrentStepIndex), steps); i++ {
				record(i, at, false)
			}
		}
		if after.canary != at.canary || after.stable != at.stable {
			peak, rounds = max(peak, max(at.canary, after.canary)+max(at.stable, after.stable)), rounds+1
		}
		if !handedOver && w.ro.Status.StableRS == forecastCanary {
			handedOver = true
			if w.rs[forecastStable].ScaleDownAt != nil {
				delay = time.Duration(ro.ScaleDownDelaySeconds()) * time.Second
			}
		}
		switch {
		case handedOver && w.rs[forecastStable].Spec == 0:
			f.Steps = append(f.Steps, ForecastStep{Index: steps, Step: "complete", Weight: f.MaxWeight, Canary: f.Replicas,
				Traffic: f.MaxWeight, Peak: peak, Rounds: rounds, Upstream: f.Replicas, Delay: delay})
			return
		case changed:
		case len(w.ro.Status.PauseConditions) > 0:
			w.ro.Status.PauseConditions = nil // promoted
		case requeue > 0 && requeue < forecastHorizon:
			w.now = w.now.Add(requeue)
		default:
			if idx := int(*w.ro.Status.CurrentStepIndex); idx < steps {
				record(idx, after, true)
			}
			return
		}
	}
}

// upstreamPods is what Argo Rollouts runs at weight w with c canary pods:
// no minPodsPerReplicaSet floor, stable full unless dynamicStableScale
// (then it keeps the pods its weight needs).
func upstreamPods(f *CanaryForecast, w, c int32, dynamicStableScale bool) int32 {
	if !dynamicStableScale {
		return c + f.Replicas
	}
	n, m := int64(f.Replicas), int64(max(f.MaxWeight, 1))
	need := int32(0)
	if ws := m - int64(min(max(w, 0), int32(m))); ws > 0 {
		need = int32(min((ws-1)*n/m+1, n))
	}
	return c + max(f.Replicas-c, need)
}
