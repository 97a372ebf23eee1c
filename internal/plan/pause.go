package plan

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// startPause records a canary pause step's pause beginning now: the
// condition's startTime at upstream's second resolution (what the API
// server stores of a metav1.Time, and what upstream's clients read) and,
// for a timed pause, the precise start in status.canary.pauseStartTime, at
// the microsecond resolution the API server stores of it, so the pause
// measures the same from this pass and from a restarted controller's.
func startPause(s *rampv1.RolloutStatus, now time.Time, timed bool) {
	s.PauseConditions = append(s.PauseConditions, rampv1.PauseCondition{
		Reason: rampv1.PauseReasonCanaryPauseStep, StartTime: metav1.Time{Time: now.Truncate(time.Second)}})
	if timed {
		s.Canary.PauseStartTime = &metav1.MicroTime{Time: now.Truncate(time.Microsecond)}
	}
}

// pauseStart is when the pause of cond began, for measuring its duration.
// It is the precise start recorded beside it when that lies within
// cond.StartTime's second and not after now; anything else (written by
// upstream, which records none, left over, edited, or from a clock ahead of
// this one) counts from the end of that second, the latest the pause can
// have begun: a lost or doubtful start only makes the pause longer, by
// under a second, never shorter.
func pauseStart(cond rampv1.PauseCondition, precise *metav1.MicroTime, now time.Time) time.Time {
	second := cond.StartTime.Time
	if p := precise; p != nil && !p.Time.Before(second) && p.Time.Before(second.Add(time.Second)) && !p.After(now) {
		return p.Time
	}
	return second.Add(time.Second)
}

// forgetPauseStart drops the precise start once no canary pause step's
// condition remains (the pause ended, a promote or a new revision cleared
// it), so it is never read for a later pause.
func forgetPauseStart(s *rampv1.RolloutStatus) {
	if findPause(s, rampv1.PauseReasonCanaryPauseStep) == nil {
		s.Canary.PauseStartTime = nil
	}
}
