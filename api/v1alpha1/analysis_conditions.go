package v1alpha1

// Messages of AnalysisRun and measurement status as Argo Rollouts words them
// (fmt formats; their arguments are noted).
const (
	// AnalysisMessageSpecInvalid: the validation error.
	AnalysisMessageSpecInvalid = "Analysis spec invalid: %v"
	// AnalysisMessageRunTerminated is the run's message when it was
	// terminated before its metrics ended.
	AnalysisMessageRunTerminated = "Run Terminated"
	// AnalysisMessageMetricTerminated is the message of a measurement cut
	// short by the run's termination.
	AnalysisMessageMetricTerminated = "Metric Terminated"
	// AnalysisMessageMetricAssessed (a metric's message): phase, cause.
	AnalysisMessageMetricAssessed = "Metric assessed %s due to %s"
	// AnalysisMessageRunAssessed (the run's message): metric name, phase,
	// cause.
	AnalysisMessageRunAssessed = "Metric \"%s\" assessed %s due to %s"
)
