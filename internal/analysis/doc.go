// Package analysis owns measurement verdicts and AnalysisRun phases (pure
// functions of the run's spec, its measurements and the current time). The
// metric providers that take measurements live in analysis/provider behind a
// small interface and a registry.
//
// A reconcile of an AnalysisRun uses it in this order:
//
//	tasks, err := analysis.Tasks(spec, status, now)     // what to measure now
//	// for each task the provider measures (or resumes / terminates) and
//	// judges its result with the metric's conditions:
//	phase, err := analysis.Evaluate(task.Metric, result)
//	analysis.Record(analysis.ResultFor(spec, &status, name), measurement, analysis.RetentionLimit(spec, name))
//	next, err := analysis.Assess(spec, &status, now)     // metric and run phases; when to look again
//
// The rules are Argo Rollouts' (v1.8+: failureLimit -1, consecutiveSuccessLimit);
// where Ramp deliberately differs, the doc comment says so. This package
// imports no client and does no I/O; it never reads the clock to decide
// anything (expr's now() builtin does, if a condition calls it, as upstream
// allows; the condition evaluation budget reads the monotonic clock to stop
// an overrunning evaluation, see budget.go).
package analysis
