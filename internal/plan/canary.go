package plan

import (
	"fmt"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// canaryRun carries one planning pass of a canary Rollout.
type canaryRun struct {
	base
	c                  *rampv1.CanaryStrategy
	steps              []rampv1.CanaryStep
	surge, unavailable int32 // maxSurge and maxUnavailable resolved for n
}

// Canary plans one reconcile of a Rollout with the canary strategy (with or
// without traffic routing): which step it is at, how big each ReplicaSet should be,
// what the Services select, the status, the Events and when to look again.
func Canary(in Input) Output {
	r := &canaryRun{base: newBase(in), c: in.Rollout.Spec.Strategy.Canary}
	r.steps = r.c.Steps
	r.s.Selector = selectorString(r.ro, "")
	if in.Invalid != "" {
		return r.invalid(in.Invalid)
	}
	var err error
	r.surge, r.unavailable, err = Budget(r.n, r.c.MaxSurge, r.c.MaxUnavailable)
	if err != nil {
		return r.invalid("spec.strategy.canary: " + err.Error())
	}
	removeCondition(&r.s, rampv1.RolloutInvalidSpec)

	r.normaliseStatus()
	rev := r.trackRevision()
	r.userActions()
	if !r.aborted() && !r.stable() && !r.ro.Spec.Paused {
		r.advanceSteps()
	}
	r.stepRunEvent()
	r.forgetStepAnalysis()
	r.backgroundAnalysis()
	healthy := r.healthy
	if r.routed() {
		r.routedComplete()
		r.routedScale()
		r.scaleEvent(rev)
		r.terminateRuns()
		r.routedServices()
		healthy = r.routedHealthy
	} else {
		canarySpec, stableSpec, othersSpec := r.scale()
		r.scaleEvent(rev)
		r.complete(canarySpec, stableSpec, othersSpec)
		r.terminateRuns()
		r.services()
	}
	r.restart(r.unavailable)
	r.counts()
	if rt := r.out.Route; rt != nil {
		r.routedWeights(*rt)
	}
	r.conditions(r.unavailable, healthy())
	if r.routed() && healthy() {
		r.delayedConditions()
	}
	r.canaryHPA()
	r.phase(healthy())
	r.analysisEvents()
	r.resumedEvent()
	if len(r.s.PauseConditions) == 0 && !r.ro.Spec.Paused {
		// A resume is read once: the pass that sees it writes the pause
		// off, so a later pause step pauses again (as upstream, whose
		// status keeps controllerPause only beside a pause condition).
		// While the user pauses the rollout the resume is kept for when
		// they unpause it: upstream loses it then, racing the plugin's
		// two writes (conditions cleared, then spec.paused unset).
		r.s.ControllerPause = false
	}
	forgetPauseStarts(&r.s)
	r.quiet()
	out := r.finish()
	r.hold(&out, int32(len(r.steps)))
	return out
}

// resumedEvent says RolloutResumed when this pass lifts the last pause
// condition (promote --full, a new template, a skip to the end) without
// aborting, as upstream: a promote that cleared the conditions itself is
// the user's write, not the controller's, and says nothing.
func (r *canaryRun) resumedEvent() {
	if len(r.ro.Status.PauseConditions) == 0 || len(r.s.PauseConditions) > 0 || r.s.Abort {
		return
	}
	for _, e := range r.out.Events {
		if e.Reason == rampv1.RolloutReasonResumed {
			return
		}
	}
	r.out.event(rampv1.RolloutReasonResumed, "%s", rampv1.RolloutMessageResumed)
}

// trackRevision notices a new pod template (steps restart at 0; the first
// revision and a return to the stable template skip them) and edited steps.
// It returns what scaleEvent tells of a new revision.
func (r *canaryRun) trackRevision() (rev revisionStart) {
	s, nSteps, stepsHash := &r.s, int32(len(r.steps)), StepsHash(r.steps)
	switch {
	case s.CurrentPodHash != r.in.NewHash:
		first := s.StableRS == ""
		s.CurrentPodHash, s.CurrentStepHash = r.in.NewHash, stepsHash
		s.PauseConditions, s.ControllerPause, s.Abort, s.AbortedAt, s.PromoteFull = nil, false, false, nil, false
		if first {
			s.StableRS = r.in.NewHash
		}
		rev = r.newRevision(first)
		s.CurrentStepIndex = ptrTo(int32(0))
		switch {
		case first:
			s.CurrentStepIndex = ptrTo(nSteps)
		case s.StableRS == r.in.NewHash:
			s.CurrentStepIndex = ptrTo(nSteps)
			if nSteps > 0 {
				r.out.event(rampv1.RolloutReasonSkipSteps, rampv1.RolloutMessageRollbackToStable)
			}
		case r.inRollbackWindow():
			s.CurrentStepIndex = ptrTo(nSteps)
			if nSteps > 0 && r.in.New.Spec > 0 { // upstream says so only of a ReplicaSet still scaled up
				r.out.event(rampv1.RolloutReasonSkipSteps, rampv1.RolloutMessageRollbackWithinWindow)
			}
		}
	case s.CurrentStepHash == legacyStepsHash(r.steps):
		s.CurrentStepHash = stepsHash // recorded by an earlier Ramp: the same steps
	case s.CurrentStepHash != stepsHash:
		s.CurrentStepHash, s.PauseConditions, s.ControllerPause = stepsHash, nil, false
		s.CurrentStepIndex = ptrTo(int32(0))
	}
	if r.stable() || s.CurrentStepIndex == nil || *s.CurrentStepIndex > nSteps {
		s.CurrentStepIndex = ptrTo(nSteps)
	}
	return rev
}

// inRollbackWindow reports whether the template is an earlier one than the
// stable ReplicaSet's (created before it) with fewer than
// spec.rollbackWindow.revisions ReplicaSets created in between: such an undo
// skips the steps. Creation times, not revision numbers, as upstream: an undo
// renumbers the returning ReplicaSet as the newest revision.
func (r *canaryRun) inRollbackWindow() bool {
	win, nw, st := r.ro.Spec.RollbackWindow, r.in.New, r.in.Stable
	if win == nil || win.Revisions <= 0 || nw == nil || st == nil || !nw.Created.Before(st.Created) {
		return false
	}
	between := int32(0)
	for _, rs := range r.in.Others {
		if nw.Created.Before(rs.Created) && rs.Created.Before(st.Created) {
			between++
		}
	}
	return between < win.Revisions
}

// userActions applies abort, retry and promote --full as the kubectl plugin
// and Argo CD set them on the status.
func (r *canaryRun) userActions() {
	s := &r.s
	if !r.abortOrRetry() {
		return
	}
	if r.aborted() {
		s.CurrentStepIndex = ptrTo(int32(0)) // retry starts the steps again
	}
	if s.PromoteFull && !r.aborted() {
		s.CurrentStepIndex = ptrTo(int32(len(r.steps)))
		s.PauseConditions, s.ControllerPause = nil, false
	}
}

// advanceSteps walks forward through every step that is already satisfied.
func (r *canaryRun) advanceSteps() {
	idx := *r.s.CurrentStepIndex
	for int(idx) < len(r.steps) {
		st := r.steps[idx]
		// A step may combine a scale or route with one other action: the
		// pods and routes come first, then the pause, analysis or experiment.
		done := true
		switch {
		case r.routed() && (st.SetWeight != nil || st.SetCanaryScale != nil || st.SetHeaderRoute != nil || st.SetMirrorRoute != nil):
			done = r.routedAtStep(idx)
		case st.SetWeight != nil || st.SetCanaryScale != nil:
			done = r.in.New != nil && r.basic(idx).Done()
		}
		if done && st.Pause != nil {
			done = r.pause(st.Pause)
		}
		if done && st.Analysis != nil {
			done = r.stepAnalysis(idx, st.Analysis)
		}
		if done && st.Experiment != nil {
			done = r.stepExperiment(idx, st.Experiment)
		}
		if !done {
			break
		}
		r.out.event(rampv1.RolloutReasonStepCompleted, rampv1.RolloutMessageStepCompleted, idx+1, len(r.steps), DescribeStep(st))
		idx++
	}
	r.s.CurrentStepIndex = &idx
}

// pause runs a pause step; it reports whether the pause is over.
func (r *canaryRun) pause(p *rampv1.RolloutPause) bool {
	s, now := &r.s, r.in.Now
	cond := findPause(s, rampv1.PauseReasonCanaryPauseStep)
	if cond == nil {
		if s.ControllerPause { // we paused, the user cleared the condition: promoted
			s.ControllerPause = false // no RolloutResumed: the user's write resumed it, as upstream
			return true
		}
		d, _ := PauseDuration(p.Duration) // validated (ValidateStrategy) before any step runs
		if precise := startPause(s, rampv1.PauseReasonCanaryPauseStep, now); d != nil {
			s.Canary.PauseStartTime = precise
		}
		s.ControllerPause = true
		r.out.event(rampv1.RolloutReasonPaused, rampv1.RolloutMessagePaused+" (%s)", rampv1.PauseReasonCanaryPauseStep)
		cond = &s.PauseConditions[len(s.PauseConditions)-1]
	}
	d, _ := PauseDuration(p.Duration) // validated (ValidateStrategy) before any step runs
	if d == nil {
		return false
	}
	deadline := pauseStart(*cond, s.Canary.PauseStartTime, now).Add(*d)
	if now.Before(deadline) {
		r.out.requeue(deadline.Sub(now))
		return false
	}
	s.PauseConditions = withoutPause(s.PauseConditions, rampv1.PauseReasonCanaryPauseStep)
	s.ControllerPause = len(s.PauseConditions) > 0
	r.out.event(rampv1.RolloutReasonResumed, "%s", rampv1.RolloutMessageResumed)
	s.Canary.PauseStartTime = nil
	late := now.Sub(deadline)
	r.out.PauseOvershoot = &late
	return true
}

// DescribeStep is the short text of a canary step, as Events and the
// dashboard name it.
func DescribeStep(st rampv1.CanaryStep) string {
	switch {
	case st.SetWeight != nil:
		return fmt.Sprintf("setWeight: %d", *st.SetWeight)
	case st.Pause != nil && st.Pause.Duration != nil:
		return "pause: " + st.Pause.Duration.String()
	case st.Pause != nil:
		return "pause"
	case st.SetCanaryScale != nil:
		return "setCanaryScale"
	case st.Analysis != nil:
		return "analysis"
	case st.SetHeaderRoute != nil:
		return "setHeaderRoute: " + st.SetHeaderRoute.Name
	case st.SetMirrorRoute != nil:
		return "setMirrorRoute: " + st.SetMirrorRoute.Name
	}
	return "step"
}
