package plan

import (
	"errors"
	"fmt"
	"math"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Bounds of a simulation: passes in all, the furthest requeue it waits for
// (the progress deadline is off, see Simulate), the time a pass takes.
const (
	simMaxPasses = 20000
	simHorizon   = 365 * 24 * time.Hour
	simPassGap   = 10 * time.Millisecond
	simTransient = 2 * time.Second
)

// Hashes of the simulated revisions.
const (
	simOld = "v1"
	simNew = "v2"
)

// Simulate deploys ro's first revision, lets it settle, then walks an
// update to a new pod template through the controller's planner, every pod
// available at once, every route and Service read back on the next pass.
// At a point where nothing moves and nothing is due, the gates open: a
// pause is promoted, step and promotion analyses and Experiments succeed;
// a timed pause or delay moves the clock. The progress deadline is off, so
// a step the planner can never complete ends the walk (Stalled). A Rollout
// the controller would not run (ValidateRollout, ValidateSupported) is a
// *SpecError: nothing is corrected on its behalf.
func Simulate(ro *rampv1.Rollout, opts SimOptions) (Trajectory, error) {
	msgs := ValidateRollout(ro)
	if msg := ValidateSupported(ro); msg != "" {
		msgs = append(msgs, msg)
	}
	if len(msgs) > 0 {
		return Trajectory{}, &SpecError{Messages: msgs}
	}
	if opts.Replicas < 0 {
		return Trajectory{}, fmt.Errorf("replicas %d: want 0 (spec.replicas) or more", opts.Replicas)
	}
	ro = ro.DeepCopy()
	n := opts.Replicas
	if n == 0 {
		n = ro.Replicas()
	}
	ro.Spec.Replicas, ro.Spec.Paused, ro.Spec.RestartAt = &n, false, nil
	ro.Spec.ProgressDeadlineSeconds, ro.Spec.ProgressDeadlineAbort = ptrTo(int32(math.MaxInt32)), false
	ro.Status, ro.Generation = rampv1.RolloutStatus{}, 1
	s := &simulator{w: newSimWorld(ro), plan: For(ro), hash: simOld, tr: Trajectory{Replicas: n}}
	if opts.HPA {
		s.w.hpas = []string{"hpa"}
	}
	s.w.svc = map[string]string{}
	for _, name := range ServiceNames(ro) { // as the reconciler reads them into Input.ServiceHash
		s.w.svc[name] = "" // selecting no revision yet, as a Service applied with the Rollout
	}
	s.describe(ro)
	if err := s.deploy(); err != nil {
		return s.tr, err
	}
	s.hash = simNew
	ro.Generation++
	var err error
	if ro.Spec.Strategy.Canary != nil {
		err = s.canary()
	} else {
		err = s.blueGreen()
	}
	return s.tr, err
}

// simulator drives the planner through a simWorld.
type simulator struct {
	w      *simWorld
	plan   Planner
	hash   string // the template being rolled out
	tr     Trajectory
	passes int
	peak   int32 // most pods at once while scaling since the last point
	// done records the kinds of point already taken (blue-green).
	done map[string]bool
}

// describe fills what the Trajectory says about the strategy.
func (s *simulator) describe(ro *rampv1.Rollout) {
	n := s.tr.Replicas
	if b := ro.Spec.Strategy.BlueGreen; b != nil {
		s.tr.Strategy, s.tr.Preview = StrategyBlueGreen, n
		if p := b.PreviewReplicaCount; p != nil {
			s.tr.Preview = min(max(*p, 0), n)
		}
		return
	}
	c := ro.Spec.Strategy.Canary
	s.tr.Strategy, s.tr.MaxWeight, s.tr.Routed = StrategyCanary, c.MaxTrafficWeight(), c.TrafficRouting != nil
	s.tr.Surge, s.tr.Unavailable, _ = Budget(n, c.MaxSurge, c.MaxUnavailable) // valid: ValidateRollout checked it
	s.tr.TakesFromStable = s.tr.Routed && len(s.w.hpas) > 0 && !ro.HPAAccountingSurge()
	if s.tr.TakesFromStable {
		s.tr.MinPods = min(c.MinPodsPerReplicaSetOrDefault(), n)
	}
	if a := c.Analysis; a != nil {
		s.tr.Background = templateNames(&a.RolloutAnalysis)
		if a.StartingStep != nil {
			s.tr.BackgroundFrom = *a.StartingStep
		}
	}
}

// errNoSettle: the planner kept changing the world past every bound.
var errNoSettle = errors.New("the planner did not settle within the simulation's bounds")

// pass plans once and makes the plan true; it reports the output, whether
// anything changed, and the most pods at once while the pass scaled (0
// when no ReplicaSet changed size).
func (s *simulator) pass() (out Output, changed bool, moved int32, err error) {
	if s.passes++; s.passes > simMaxPasses {
		return Output{}, false, 0, errNoSettle
	}
	in := s.w.input(s.hash)
	out = s.plan(in)
	before := map[string]int32{}
	for h, rs := range s.w.rs {
		before[h] = rs.Spec
	}
	changed, _, _ = s.w.apply(s.hash, &out)
	changed = s.w.applyRoutes(in, out) || changed
	var pods int32
	scaled := false
	for h, rs := range s.w.rs {
		b, ok := before[h]
		scaled = scaled || !ok || b != rs.Spec
		pods += max(b, rs.Spec)
	}
	if scaled {
		moved = pods
	}
	if c := findCondition(&s.w.ro.Status, rampv1.RolloutInvalidSpec); c != nil && c.Status == "True" {
		return out, false, 0, &SpecError{Messages: []string{c.Message}}
	}
	if s.w.ro.Status.Abort {
		return out, false, 0, fmt.Errorf("the planner aborted the update: %s", s.w.ro.Status.Message)
	}
	return out, changed, moved, nil
}

// wait moves the clock to the requeue the plan asked for, if one is due
// within the horizon, and reports whether it did.
func (s *simulator) wait(out Output) bool {
	if d := out.RequeueAfter; d > 0 && d < simHorizon {
		s.w.now = s.w.now.Add(d)
		return true
	}
	return false
}

// deploy creates the first revision and lets it settle: the Initial point.
func (s *simulator) deploy() error {
	for {
		out, changed, _, err := s.pass()
		if err != nil {
			return err
		}
		switch {
		case changed:
			s.w.now = s.w.now.Add(simPassGap)
		case !s.wait(out):
			s.tr.Initial = s.point(PointInitial, -1)
			s.tr.Initial.Peak, s.peak = 0, 0
			return nil
		}
	}
}

// point is the world now, as a Point of kind at step index.
func (s *simulator) point(kind string, index int) Point {
	p := Point{Kind: kind, Index: index, Step: kind, New: s.state(s.hash), Old: s.state(simOld), Peak: s.peak}
	if s.hash == simOld {
		p.Old = RSState{}
	}
	if t := s.w.traffic; t != nil {
		p.Traffic = t.Route.Canary
	}
	st := s.w.ro.Status
	for _, rs := range s.w.rs {
		if s.tr.Strategy == StrategyCanary || rs.Hash == st.BlueGreen.ActiveSelector {
			p.HPAPods += rs.Replicas
		}
	}
	if s.tr.Strategy == StrategyBlueGreen {
		p.Active = "old"
		if st.BlueGreen.ActiveSelector == s.hash {
			p.Active = "new"
		}
	}
	return p
}

func (s *simulator) state(hash string) RSState {
	if rs := s.w.rs[hash]; rs != nil {
		return RSState{Spec: rs.Spec, Available: rs.Available}
	}
	return RSState{}
}

// add appends a point and starts counting the peak of the next one.
func (s *simulator) add(p Point) {
	s.tr.Points = append(s.tr.Points, p)
	s.peak = 0
}

// transient: the plan is due again so soon that no one sees this point
// settle (e.g. a deadline rounded up to the next second). The conformance
// harness takes a point as settled after about two quiet seconds.
func transient(out Output) bool {
	return out.RequeueAfter > 0 && out.RequeueAfter < simTransient
}

// completed adds PointComplete once the new ReplicaSet is stable, with the
// delay the previous one waits.
func (s *simulator) completed() {
	if s.w.ro.Status.StableRS != s.hash || s.done[PointComplete] {
		return
	}
	s.mark(PointComplete)
	p := s.point(PointComplete, s.lastIndex())
	p.Weight = s.tr.MaxWeight
	if old := s.w.rs[simOld]; old != nil && old.ScaleDownAt != nil {
		p.Delay = rampv1.SaturatingSeconds(int64(s.w.ro.ScaleDownDelaySeconds()))
	}
	s.add(p)
}

// finish adds PointScaledDown when the previous ReplicaSet changed since
// PointComplete.
func (s *simulator) finish() {
	last := s.tr.Points[len(s.tr.Points)-1]
	p := s.point(PointScaledDown, s.lastIndex())
	p.Weight = s.tr.MaxWeight
	if p.Old != last.Old || p.New != last.New {
		s.add(p)
	}
}

func (s *simulator) mark(kind string) {
	if s.done == nil {
		s.done = map[string]bool{}
	}
	s.done[kind] = true
}

// lastIndex is the Index of the points after the steps: the number of
// canary steps, -1 for blue-green.
func (s *simulator) lastIndex() int {
	if s.tr.Strategy == StrategyBlueGreen {
		return -1
	}
	return len(s.steps())
}

func (s *simulator) steps() []rampv1.CanaryStep {
	if c := s.w.ro.Spec.Strategy.Canary; c != nil {
		return c.Steps
	}
	return nil
}
