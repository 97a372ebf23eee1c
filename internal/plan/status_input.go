package plan

import rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"

// normaliseStatus brings the status values a canary plan indexes or
// measures from into range before anything reads them: anyone who may
// patch rollouts/status can write any value, and a plan must neither panic
// on one nor let it speed the release up.
//   - currentStepIndex below 0 is 0 (the steps run again from the first;
//     upstream indexes its steps with it and panics), above the step count
//     is the step count (the steps are done, as upstream reads it);
//   - a canary pause condition while the current step is not a pause (a
//     write moved the step and left it) is dropped, with controllerPause
//     when no other condition remains: upstream drops it when that step
//     completes, so a later timed pause never counts from its stale start,
//     nor takes its absence for the user's promote.
//
// The rest is read safely where it is used: a stableRS or currentPodHash
// naming no ReplicaSet is no stable ReplicaSet (the new one takes all
// replicas, as upstream) or a new revision (steps from 0).
func (r *canaryRun) normaliseStatus() {
	s, n := &r.s, int32(len(r.steps))
	if i := s.CurrentStepIndex; i != nil && (*i < 0 || *i > n) {
		s.CurrentStepIndex = ptrTo(min(max(*i, 0), n))
	}
	if findPause(s, rampv1.PauseReasonCanaryPauseStep) == nil {
		return
	}
	if i := s.CurrentStepIndex; i != nil && *i < n && r.steps[*i].Pause != nil {
		return
	}
	s.PauseConditions = withoutPause(s.PauseConditions, rampv1.PauseReasonCanaryPauseStep)
	if len(s.PauseConditions) == 0 {
		s.ControllerPause = false
	}
}
