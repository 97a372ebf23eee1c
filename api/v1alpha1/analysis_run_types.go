package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func init() {
	register(&AnalysisRun{}, &AnalysisRunList{})
}

// AnalysisRun is one execution of an analysis: its metrics, resolved
// arguments, and the measurements taken so far. Completed runs are
// Successful, Failed, Error or Inconclusive.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=analysisruns,scope=Namespaced,shortName=ar
// +kubebuilder:printcolumn:name="Status",type="string",JSONPath=".status.phase",description="AnalysisRun status"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since resource was created"
type AnalysisRun struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec AnalysisRunSpec `json:"spec"`
	// +optional
	Status AnalysisRunStatus `json:"status,omitzero"`
}

// AnalysisRunList is a list of AnalysisRuns.
//
// +kubebuilder:object:root=true
type AnalysisRunList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []AnalysisRun `json:"items"`
}

// AnalysisRunSpec is the specification of an AnalysisRun.
type AnalysisRunSpec struct {
	// Metrics to measure.
	Metrics []Metric `json:"metrics"`
	// Args are the resolved arguments referenced by the metrics.
	// +optional
	Args []Argument `json:"args,omitempty"`
	// Terminate stops the run: in-flight measurements are ended and the run
	// completes with the results it has.
	// +optional
	Terminate bool `json:"terminate,omitempty"`
	// DryRun lists metrics whose results do not affect the run's outcome.
	// +optional
	DryRun []DryRun `json:"dryRun,omitempty"`
	// MeasurementRetention overrides how many measurements are kept per
	// metric (default 10).
	// +optional
	MeasurementRetention []MeasurementRetention `json:"measurementRetention,omitempty"`
	// TTLStrategy deletes the run some time after it completes. Without it
	// completed runs are kept (a Rollout prunes its own by history limits).
	// +optional
	TTLStrategy *TTLStrategy `json:"ttlStrategy,omitempty"`
}

// TTLStrategy is how long a completed AnalysisRun is kept.
type TTLStrategy struct {
	// SecondsAfterCompletion deletes the run this long after it completes,
	// whatever its phase, unless a phase-specific field below applies.
	// +optional
	SecondsAfterCompletion *int32 `json:"secondsAfterCompletion,omitempty"`
	// SecondsAfterFailure applies to runs that completed Failed or Error.
	// +optional
	SecondsAfterFailure *int32 `json:"secondsAfterFailure,omitempty"`
	// SecondsAfterSuccess applies to runs that completed Successful.
	// +optional
	SecondsAfterSuccess *int32 `json:"secondsAfterSuccess,omitempty"`
}

// AnalysisRunStatus is the observed state of an AnalysisRun.
type AnalysisRunStatus struct {
	// Phase of the run.
	Phase AnalysisPhase `json:"phase"`
	// Message explains the phase, e.g. which metric failed.
	// +optional
	Message string `json:"message,omitempty"`
	// MetricResults holds the results of each metric.
	// +optional
	MetricResults []MetricResult `json:"metricResults,omitempty"`
	// StartedAt is when the run started measuring.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// RunSummary counts the metrics (not in dry-run) by phase.
	// +optional
	RunSummary RunSummary `json:"runSummary,omitzero"`
	// DryRunSummary counts the dry-run metrics by phase.
	// +optional
	DryRunSummary *RunSummary `json:"dryRunSummary,omitempty"`
	// CompletedAt is when the run reached a completed phase.
	// +optional
	CompletedAt *metav1.Time `json:"completedAt,omitempty"`
}

// RunSummary counts metrics by phase.
type RunSummary struct {
	// Count is the number of metrics.
	// +optional
	Count int32 `json:"count,omitempty"`
	// +optional
	Successful int32 `json:"successful,omitempty"`
	// +optional
	Failed int32 `json:"failed,omitempty"`
	// +optional
	Inconclusive int32 `json:"inconclusive,omitempty"`
	// +optional
	Error int32 `json:"error,omitempty"`
}

// MetricResult is the state of one metric of an AnalysisRun.
type MetricResult struct {
	// Name of the metric.
	Name string `json:"name"`
	// Phase of the metric.
	Phase AnalysisPhase `json:"phase"`
	// Measurements are the most recent measurements, oldest first, at most
	// the retention limit of the metric.
	// +optional
	Measurements []Measurement `json:"measurements,omitempty"`
	// Message explains the phase.
	// +optional
	Message string `json:"message,omitempty"`
	// Count is the number of measurements taken (errors excluded).
	// +optional
	Count int32 `json:"count,omitempty"`
	// Successful is the number of successful measurements.
	// +optional
	Successful int32 `json:"successful,omitempty"`
	// Failed is the number of failed measurements.
	// +optional
	Failed int32 `json:"failed,omitempty"`
	// Inconclusive is the number of inconclusive measurements.
	// +optional
	Inconclusive int32 `json:"inconclusive,omitempty"`
	// Error is the number of measurements that ended in error.
	// +optional
	Error int32 `json:"error,omitempty"`
	// ConsecutiveError is the number of errors since the last measurement
	// that did not end in error.
	// +optional
	ConsecutiveError int32 `json:"consecutiveError,omitempty"`
	// ConsecutiveSuccess is the number of successful measurements in a row.
	// +optional
	ConsecutiveSuccess int32 `json:"consecutiveSuccess,omitempty"`
	// DryRun is true when the metric runs in dry-run mode.
	// +optional
	DryRun bool `json:"dryRun,omitempty"`
	// Metadata holds provider details, e.g. the resolved query or Job name.
	// +optional
	Metadata map[string]string `json:"metadata,omitempty"`
}

// Measurement is one measurement of a metric.
type Measurement struct {
	// Phase of the measurement.
	Phase AnalysisPhase `json:"phase"`
	// Message explains the phase (e.g. the provider error).
	// +optional
	Message string `json:"message,omitempty"`
	// StartedAt is when the measurement started.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// FinishedAt is when the measurement completed.
	// +optional
	FinishedAt *metav1.Time `json:"finishedAt,omitempty"`
	// Value is the measured value, as a string.
	// +optional
	Value string `json:"value,omitempty"`
	// Metadata holds provider details of the measurement (e.g. a Job name).
	// +optional
	Metadata map[string]string `json:"metadata,omitempty"`
	// ResumeAt is when a running asynchronous measurement is next checked.
	// +optional
	ResumeAt *metav1.Time `json:"resumeAt,omitempty"`
}

// AnalysisPhase is the phase of an AnalysisRun, a metric, a measurement or
// an Experiment.
type AnalysisPhase string

// Analysis phases, as in Argo Rollouts.
const (
	AnalysisPhasePending      AnalysisPhase = "Pending"
	AnalysisPhaseRunning      AnalysisPhase = "Running"
	AnalysisPhaseSuccessful   AnalysisPhase = "Successful"
	AnalysisPhaseFailed       AnalysisPhase = "Failed"
	AnalysisPhaseError        AnalysisPhase = "Error"
	AnalysisPhaseInconclusive AnalysisPhase = "Inconclusive"
)

// Completed reports whether the phase is terminal (Successful, Failed,
// Error or Inconclusive).
func (p AnalysisPhase) Completed() bool {
	switch p {
	case AnalysisPhaseSuccessful, AnalysisPhaseFailed, AnalysisPhaseError, AnalysisPhaseInconclusive:
		return true
	}
	return false
}

// Event reasons used for AnalysisRuns, following Argo Rollouts' naming
// ("AnalysisRun"/"Metric" followed by the phase).
const (
	// AnalysisRunEventReasonPrefix prefixes the phase in the reason of the
	// event emitted when a run completes, e.g. "AnalysisRunSuccessful".
	AnalysisRunEventReasonPrefix = "AnalysisRun"
	// MetricEventReasonPrefix prefixes the phase in the reason of the event
	// emitted when a metric completes, e.g. "MetricFailed".
	MetricEventReasonPrefix = "Metric"
)

// AnalysisRunEventReason is the reason of the event emitted when a run
// reaches phase p, e.g. "AnalysisRunFailed".
func AnalysisRunEventReason(p AnalysisPhase) string { return AnalysisRunEventReasonPrefix + string(p) }

// MetricEventReason is the reason of the event emitted when a metric
// reaches phase p, e.g. "MetricInconclusive".
func MetricEventReason(p AnalysisPhase) string { return MetricEventReasonPrefix + string(p) }
