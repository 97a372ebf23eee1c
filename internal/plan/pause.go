package plan

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// startPause records a pause for reason beginning now: the condition's
// startTime at upstream's second resolution (what the API server stores of
// a metav1.Time, and what upstream's clients read). It returns the precise
// start, at the microsecond resolution the API server stores of a
// metav1.MicroTime, for a timed pause to record beside it, so the pause
// measures the same from this pass and from a restarted controller's.
func startPause(s *rampv1.RolloutStatus, reason rampv1.PauseReason, now time.Time) *metav1.MicroTime {
	s.PauseConditions = append(s.PauseConditions, rampv1.PauseCondition{
		Reason: reason, StartTime: metav1.Time{Time: now.Truncate(time.Second)}})
	return &metav1.MicroTime{Time: now.Truncate(time.Microsecond)}
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

// forgetPauseStarts drops a precise start once its pause condition is gone
// (the pause ended, a promote or a new revision cleared it), so it is never
// read for a later pause.
func forgetPauseStarts(s *rampv1.RolloutStatus) {
	if findPause(s, rampv1.PauseReasonCanaryPauseStep) == nil {
		s.Canary.PauseStartTime = nil
	}
	if findPause(s, rampv1.PauseReasonBlueGreenPause) == nil {
		s.BlueGreen.PauseStartTime = nil
	}
}
