package analysis

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Terminating reports whether the run takes no new measurement: its
// termination was requested (spec.terminate), or a metric that is not in
// dry-run mode completed Failed, Error or Inconclusive, which ends the run
// early.
func Terminating(spec rampv1.AnalysisRunSpec, status rampv1.AnalysisRunStatus) bool {
	if spec.Terminate {
		return true
	}
	for _, r := range status.MetricResults {
		if endsRun(r.Phase) && !rampv1.IsDryRunMetric(spec.DryRun, r.Name) {
			return true
		}
	}
	return false
}

func endsRun(p rampv1.AnalysisPhase) bool {
	return p == rampv1.AnalysisPhaseFailed || p == rampv1.AnalysisPhaseError || p == rampv1.AnalysisPhaseInconclusive
}

// severity orders phases from best to worst, as upstream: the run takes
// the worst phase of its (non-dry-run) metrics.
var severity = map[rampv1.AnalysisPhase]int{
	rampv1.AnalysisPhaseSuccessful:   0,
	rampv1.AnalysisPhaseRunning:      1,
	rampv1.AnalysisPhasePending:      2,
	rampv1.AnalysisPhaseInconclusive: 3,
	rampv1.AnalysisPhaseError:        4,
	rampv1.AnalysisPhaseFailed:       5,
}

// verdict is the assessed phase of one metric of the run.
type verdict struct {
	name   string
	phase  rampv1.AnalysisPhase
	msg    string // why a limit decided the phase
	dry    bool
	result *rampv1.MetricResult // nil: no measurement was ever started
}

func judge(spec rampv1.AnalysisRunSpec, status *rampv1.AnalysisRunStatus, terminating bool) ([]verdict, error) {
	vs := make([]verdict, 0, len(spec.Metrics))
	for _, m := range spec.Metrics {
		v := verdict{name: m.Name, dry: rampv1.IsDryRunMetric(spec.DryRun, m.Name), result: resultOf(status, m.Name)}
		if v.result != nil {
			var err error
			if v.phase, v.msg, err = MetricPhase(m, *v.result, terminating); err != nil {
				return nil, err
			}
		}
		vs = append(vs, v)
	}
	return vs, nil
}

// Assess brings the run's status up to date with its spec and measurements
// at now, and returns when the run next needs a reconcile (zero: only a
// change to the run, or a provider's watch for an in-flight measurement
// without resumeAt, does). A completed run is left alone. It sets:
//   - startedAt on the first call, completedAt when the run completes;
//   - Error with "Analysis spec invalid: ..." when ValidateRun fails;
//   - each metric's phase (MetricPhase), dryRun flag and message (the last
//     measurement's message when the phase changes; for a dry-run metric
//     ended by a limit, "Metric assessed <phase> due to <reason>");
//   - runSummary and dryRunSummary: metrics counted by completed phase
//     (upstream counts a metric its count ended Failed or Inconclusive, as
//     consecutiveSuccessLimit asks, as Successful);
//   - the phase: Running until every metric completed, then the worst phase
//     of the metrics not in dry-run (Failed > Error > Inconclusive >
//     Successful), Successful when all are dry-run. A Failed, Error or
//     Inconclusive metric ends the run early: the other metrics complete
//     with what they measured (Successful) once their in-flight
//     measurements are terminated (see Tasks);
//   - the message, for a run ended by a limit:
//     `Metric "<name>" assessed <phase> due to <reason>[: "Error Message: <last message>"]`,
//     or "Run Terminated" when termination was requested.
func Assess(spec rampv1.AnalysisRunSpec, status *rampv1.AnalysisRunStatus, now time.Time) (time.Time, error) {
	if status.Phase.Completed() {
		return time.Time{}, nil
	}
	stamp := metav1.NewTime(now)
	if status.StartedAt == nil {
		status.StartedAt = &stamp
	}
	if err := ValidateRun(spec); err != nil {
		status.Phase, status.Message, status.CompletedAt = rampv1.AnalysisPhaseError, fmt.Sprintf(rampv1.AnalysisMessageSpecInvalid, err), &stamp
		return time.Time{}, nil
	}
	terminating := Terminating(spec, *status)
	vs, err := judge(spec, status, terminating)
	if err != nil {
		return time.Time{}, err
	}
	if !terminating && endsEarly(vs) {
		terminating = true
		if vs, err = judge(spec, status, true); err != nil {
			return time.Time{}, err
		}
	}
	for _, v := range vs {
		if v.result != nil {
			update(v)
		}
	}
	phase, msg, inFlight := runPhase(spec, status, vs, terminating)
	status.Phase, status.Message = phase, msg
	switch {
	case phase.Completed():
		status.CompletedAt = &stamp
		return time.Time{}, nil
	case terminating && inFlight:
		return now, nil // terminate the in-flight measurements now
	}
	return nextWake(spec, status, terminating, now)
}

func endsEarly(vs []verdict) bool {
	for _, v := range vs {
		if !v.dry && endsRun(v.phase) {
			return true
		}
	}
	return false
}

// update writes a verdict into its metric result.
func update(v verdict) {
	r := v.result
	r.DryRun = v.dry
	if r.Phase != v.phase {
		if n := len(r.Measurements); n > 0 {
			r.Message = r.Measurements[n-1].Message
		}
		r.Phase = v.phase
	}
	if v.dry && v.phase.Completed() && v.msg != "" {
		r.Message = fmt.Sprintf(rampv1.AnalysisMessageMetricAssessed, v.phase, v.msg)
	}
}

// runPhase computes the summaries into status and returns the run's phase
// and message, and whether a metric still has a measurement in flight.
func runPhase(spec rampv1.AnalysisRunSpec, status *rampv1.AnalysisRunStatus, vs []verdict, terminating bool) (rampv1.AnalysisPhase, string, bool) {
	var run, dry rampv1.RunSummary
	var worst rampv1.AnalysisPhase
	var msg string
	if spec.Terminate {
		msg = rampv1.AnalysisMessageRunTerminated
	}
	complete, inFlight := true, false
	for _, v := range vs {
		sum := &run
		if v.dry {
			sum = &dry
		}
		sum.Count++
		if v.result == nil || !v.phase.Completed() {
			complete = false
			inFlight = inFlight || v.phase == rampv1.AnalysisPhaseRunning
			continue
		}
		tally(sum, v.phase)
		if v.dry || (worst != "" && severity[v.phase] <= severity[worst]) {
			continue
		}
		worst = v.phase
		if v.msg != "" {
			msg = fmt.Sprintf(rampv1.AnalysisMessageRunAssessed, v.name, v.phase, v.msg)
			if v.result.Message != "" {
				msg += fmt.Sprintf(": \"Error Message: %s\"", v.result.Message)
			}
		}
	}
	status.RunSummary, status.DryRunSummary = run, &dry
	if worst == "" {
		worst = rampv1.AnalysisPhaseSuccessful
	}
	switch {
	case terminating && !inFlight, complete:
		return worst, msg, inFlight
	}
	return rampv1.AnalysisPhaseRunning, "", inFlight
}

func tally(s *rampv1.RunSummary, p rampv1.AnalysisPhase) {
	switch p {
	case rampv1.AnalysisPhaseSuccessful:
		s.Successful++
	case rampv1.AnalysisPhaseFailed:
		s.Failed++
	case rampv1.AnalysisPhaseInconclusive:
		s.Inconclusive++
	case rampv1.AnalysisPhaseError:
		s.Error++
	}
}
