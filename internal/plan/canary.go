package plan

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// pauseStartSlack: a timed pause starts on a whole second (the resolution of
// status.pauseConditions[].startTime) and ends this long after its deadline,
// so it never ends early, whatever the observer measures from.
const pauseStartSlack = 20 * time.Millisecond

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

	r.trackRevision()
	r.userActions()
	if !r.aborted && !r.stable && !r.ro.Spec.Paused {
		r.advanceSteps()
	}
	r.stepRunEvent()
	r.forgetStepAnalysis()
	r.backgroundAnalysis()
	healthy := r.healthy
	if r.routed() {
		r.routedComplete()
		r.routedScale()
		r.scaleEvent()
		r.terminateRuns()
		r.routedServices()
		healthy = r.routedHealthy
	} else {
		canarySpec, stableSpec, othersSpec := r.scale()
		r.scaleEvent()
		r.complete(canarySpec, stableSpec, othersSpec)
		r.terminateRuns()
		r.services()
	}
	r.restart(r.unavailable)
	r.counts()
	r.routedWeights()
	r.conditions(r.unavailable, healthy())
	if r.routed() && healthy() {
		r.delayedConditions()
	}
	r.canaryHPA()
	r.phase(healthy())
	r.analysisEvents()
	r.quiet()
	r.out.Status = r.s
	return r.out
}

// trackRevision notices a new pod template (steps restart at 0; the first
// revision and a return to the stable template skip them) and edited steps.
func (r *canaryRun) trackRevision() {
	s, nSteps, stepsHash := &r.s, int32(len(r.steps)), StepsHash(r.steps)
	switch {
	case s.CurrentPodHash != r.in.NewHash:
		first := s.StableRS == ""
		s.CurrentPodHash, s.CurrentStepHash = r.in.NewHash, stepsHash
		s.PauseConditions, s.ControllerPause, s.Abort, s.AbortedAt, s.PromoteFull = nil, false, false, nil, false
		if first {
			s.StableRS = r.in.NewHash
		}
		r.newRevision(first)
		s.CurrentStepIndex = ptrTo(int32(0))
		if s.StableRS == r.in.NewHash || (!first && r.inRollbackWindow()) {
			s.CurrentStepIndex = ptrTo(nSteps)
		}
	case s.CurrentStepHash != stepsHash:
		s.CurrentStepHash, s.PauseConditions, s.ControllerPause = stepsHash, nil, false
		s.CurrentStepIndex = ptrTo(int32(0))
	}
	r.stable = s.StableRS == r.in.NewHash
	if r.stable || s.CurrentStepIndex == nil || *s.CurrentStepIndex > nSteps {
		s.CurrentStepIndex = ptrTo(nSteps)
	}
}

// inRollbackWindow reports whether the template is an earlier revision
// within spec.rollbackWindow.revisions of the newest: such an undo skips the
// steps.
func (r *canaryRun) inRollbackWindow() bool {
	win := r.ro.Spec.RollbackWindow
	if win == nil || win.Revisions <= 0 || r.in.New == nil {
		return false
	}
	newer := int32(0)
	for _, rs := range append(r.in.Others, derefRS(r.in.Stable)...) {
		if rs.Revision > r.in.New.Revision {
			newer++
		}
	}
	return newer > 0 && newer <= win.Revisions
}

// userActions applies abort, retry and promote --full as the kubectl plugin
// and Argo CD set them on the status.
func (r *canaryRun) userActions() {
	s := &r.s
	if !r.abortOrRetry() {
		return
	}
	if r.aborted {
		s.CurrentStepIndex = ptrTo(int32(0)) // retry starts the steps again
	}
	if s.PromoteFull && !r.aborted {
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
		r.out.event(rampv1.RolloutReasonStepCompleted, "Rollout step %d/%d completed (%s)", idx+1, len(r.steps), describeStep(st))
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
		d, _ := PauseDuration(p.Duration)
		start := now
		if d != nil { // start a timed pause on a whole second, exactly representable in status
			start = now.Truncate(time.Second)
			if now.Sub(start) > pauseStartSlack {
				r.out.requeue(start.Add(time.Second).Sub(now))
				return false
			}
		}
		s.PauseConditions = append(s.PauseConditions, rampv1.PauseCondition{
			Reason: rampv1.PauseReasonCanaryPauseStep, StartTime: metav1.Time{Time: start}})
		s.ControllerPause = true
		r.out.event(rampv1.RolloutReasonPaused, "Rollout is paused (%s)", rampv1.PauseReasonCanaryPauseStep)
		cond = &s.PauseConditions[len(s.PauseConditions)-1]
	}
	d, _ := PauseDuration(p.Duration)
	if d == nil {
		return false
	}
	deadline := cond.StartTime.Add(*d + pauseStartSlack)
	if now.Before(deadline) {
		r.out.requeue(deadline.Sub(now))
		return false
	}
	s.PauseConditions = withoutPause(s.PauseConditions, rampv1.PauseReasonCanaryPauseStep)
	s.ControllerPause = len(s.PauseConditions) > 0
	r.out.event(rampv1.RolloutReasonResumed, "%s", rampv1.RolloutMessageResumed)
	return true
}

func describeStep(st rampv1.CanaryStep) string {
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
