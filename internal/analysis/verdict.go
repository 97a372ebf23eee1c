package analysis

import (
	"fmt"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// limits are a metric's effective count and limits (defaults applied).
type limits struct {
	count              int32 // measurements to take; 0 means until the run is terminated
	failure            int32 // -1: disabled
	inconclusive       int32
	consecutiveError   int32
	consecutiveSuccess int32 // 0: disabled
}

// limitsOf resolves m's count and limits. A string that does not hold an
// integer (an unresolved "{{args.x}}") is an error naming the field.
func limitsOf(m rampv1.Metric) (limits, error) {
	var l limits
	for _, f := range [...]struct {
		name string
		dst  *int32
		get  func() (int32, error)
	}{
		{"count", &l.count, m.EffectiveCount},
		{"failureLimit", &l.failure, m.EffectiveFailureLimit},
		{"inconclusiveLimit", &l.inconclusive, m.EffectiveInconclusiveLimit},
		{"consecutiveErrorLimit", &l.consecutiveError, m.EffectiveConsecutiveErrorLimit},
		{"consecutiveSuccessLimit", &l.consecutiveSuccess, m.EffectiveConsecutiveSuccessLimit},
	} {
		v, err := f.get()
		if err != nil {
			return limits{}, fmt.Errorf("metric %q: %s: %w", m.Name, f.name, err)
		}
		*f.dst = v
	}
	return l, nil
}

// exceeded returns the phase and message of a metric whose counters went
// past a limit, or "" when none did. As upstream, later checks win:
// consecutive errors over inconclusive over failed.
func (l limits) exceeded(r rampv1.MetricResult) (rampv1.AnalysisPhase, string) {
	var phase rampv1.AnalysisPhase
	var msg string
	if l.failure >= 0 && r.Failed > l.failure {
		phase, msg = rampv1.AnalysisPhaseFailed, fmt.Sprintf("failed (%d) > failureLimit (%d)", r.Failed, l.failure)
	}
	if r.Inconclusive > l.inconclusive {
		phase, msg = rampv1.AnalysisPhaseInconclusive,
			fmt.Sprintf("inconclusive (%d) > inconclusiveLimit (%d)", r.Inconclusive, l.inconclusive)
	}
	if r.ConsecutiveError > l.consecutiveError {
		phase, msg = rampv1.AnalysisPhaseError,
			fmt.Sprintf("consecutiveErrors (%d) > consecutiveErrorLimit (%d)", r.ConsecutiveError, l.consecutiveError)
	}
	return phase, msg
}

// MetricPhase decides the phase of metric m from its result so far, with
// Argo Rollouts' rules, and says why when the phase is not Successful or
// Running (the message is empty otherwise):
//
//  1. A completed phase never changes.
//  2. No measurement yet: Pending, or Successful when the run is
//     terminating (it was stopped before the metric started).
//  3. The last measurement is still in flight: Running.
//  4. failed > failureLimit (unless -1): Failed; inconclusive >
//     inconclusiveLimit: Inconclusive; consecutiveError >
//     consecutiveErrorLimit (default 4): Error.
//  5. consecutiveSuccess >= consecutiveSuccessLimit (when > 0): Successful.
//  6. count reached (errors are not counted): Successful when only
//     failureLimit applies; Failed when only consecutiveSuccessLimit applies
//     (it was not reached); Inconclusive when both apply.
//  7. Otherwise Running, or Successful when the run is terminating.
func MetricPhase(m rampv1.Metric, r rampv1.MetricResult, terminating bool) (rampv1.AnalysisPhase, string, error) {
	if r.Phase.Completed() {
		return r.Phase, "", nil
	}
	l, err := limitsOf(m)
	if err != nil {
		return rampv1.AnalysisPhaseError, err.Error(), err
	}
	if len(r.Measurements) == 0 {
		if terminating {
			return rampv1.AnalysisPhaseSuccessful, "", nil
		}
		return rampv1.AnalysisPhasePending, "", nil
	}
	if !r.Measurements[len(r.Measurements)-1].Phase.Completed() {
		return rampv1.AnalysisPhaseRunning, "", nil
	}
	if phase, msg := l.exceeded(r); phase != "" {
		return phase, msg, nil
	}
	if l.consecutiveSuccess > 0 && r.ConsecutiveSuccess >= l.consecutiveSuccess {
		return rampv1.AnalysisPhaseSuccessful, "", nil
	}
	if l.count > 0 && r.Count >= l.count {
		failureApplies, successApplies := l.failure >= 0, l.consecutiveSuccess > 0
		switch {
		case failureApplies && successApplies:
			return rampv1.AnalysisPhaseInconclusive, fmt.Sprintf("count (%d) reached without failureLimit (%d) "+
				"or consecutiveSuccessLimit (%d) being reached", l.count, l.failure, l.consecutiveSuccess), nil
		case successApplies:
			return rampv1.AnalysisPhaseFailed, fmt.Sprintf("count (%d) reached without consecutiveSuccessLimit (%d) "+
				"being reached", l.count, l.consecutiveSuccess), nil
		}
		return rampv1.AnalysisPhaseSuccessful, "", nil
	}
	if terminating {
		return rampv1.AnalysisPhaseSuccessful, "", nil
	}
	return rampv1.AnalysisPhaseRunning, "", nil
}
