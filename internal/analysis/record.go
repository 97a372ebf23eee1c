package analysis

import (
	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Record adds measurement m to result r and keeps at most keep
// measurements (the oldest are dropped; keep <= 0 keeps the default 10).
//
// When r's last measurement is still in flight, m is its new state and
// replaces it (a resumed or terminated measurement); otherwise m is
// appended. Only a completed m changes the counters:
//
//	Successful:   count, successful, consecutiveSuccess +1; consecutiveError = 0
//	Failed:       count, failed +1; consecutiveError = consecutiveSuccess = 0
//	Inconclusive: count, inconclusive +1; consecutiveError = consecutiveSuccess = 0
//	Error:        error, consecutiveError +1; consecutiveSuccess = 0 (count unchanged)
//
// The caller stamps m.FinishedAt with its clock when m completes; the next
// measurement is scheduled from it.
func Record(r *rampv1.MetricResult, m rampv1.Measurement, keep int32) {
	if n := len(r.Measurements); n > 0 && !r.Measurements[n-1].Phase.Completed() {
		r.Measurements[n-1] = m
	} else {
		r.Measurements = append(r.Measurements, m)
	}
	switch m.Phase {
	case rampv1.AnalysisPhaseSuccessful:
		r.Count++
		r.Successful++
		r.ConsecutiveSuccess++
		r.ConsecutiveError = 0
	case rampv1.AnalysisPhaseFailed:
		r.Count++
		r.Failed++
		r.ConsecutiveSuccess, r.ConsecutiveError = 0, 0
	case rampv1.AnalysisPhaseInconclusive:
		r.Count++
		r.Inconclusive++
		r.ConsecutiveSuccess, r.ConsecutiveError = 0, 0
	case rampv1.AnalysisPhaseError:
		r.Error++
		r.ConsecutiveError++
		r.ConsecutiveSuccess = 0
	}
	retain(r, keep)
}

// retain drops the oldest measurements beyond keep (default 10). The
// counters are untouched: they count every measurement ever taken.
func retain(r *rampv1.MetricResult, keep int32) {
	if keep <= 0 {
		keep = rampv1.DefaultMeasurementRetentionLimit
	}
	if extra := len(r.Measurements) - int(keep); extra > 0 {
		r.Measurements = append([]rampv1.Measurement(nil), r.Measurements[extra:]...)
	}
}

// RetentionLimit is the number of measurements to keep for metricName: the
// limit of the first measurementRetention entry matching it (a name or a
// regular expression), or 10 when none matches or its limit is 0.
func RetentionLimit(spec rampv1.AnalysisRunSpec, metricName string) int32 {
	if n := rampv1.MeasurementRetentionLimit(spec.MeasurementRetention, metricName); n > 0 {
		return n
	}
	return rampv1.DefaultMeasurementRetentionLimit
}

// ResultFor returns the result of metric name in status, appending a new
// Running one (dry-run as the spec says) when the metric has none yet. The
// pointer is valid until the next append to status.MetricResults.
func ResultFor(spec rampv1.AnalysisRunSpec, status *rampv1.AnalysisRunStatus, name string) *rampv1.MetricResult {
	if r := resultOf(status, name); r != nil {
		return r
	}
	status.MetricResults = append(status.MetricResults, rampv1.MetricResult{
		Name: name, Phase: rampv1.AnalysisPhaseRunning, DryRun: rampv1.IsDryRunMetric(spec.DryRun, name),
	})
	return &status.MetricResults[len(status.MetricResults)-1]
}

// resultOf returns the result of metric name, or nil.
func resultOf(status *rampv1.AnalysisRunStatus, name string) *rampv1.MetricResult {
	for i := range status.MetricResults {
		if status.MetricResults[i].Name == name {
			return &status.MetricResults[i]
		}
	}
	return nil
}
