package v1alpha1

// Types in this file are used by more than one kind: the analysis kinds,
// Experiment, and Rollout (its analysis steps, background analysis and
// experiment steps). Their JSON names match Argo Rollouts v1alpha1 exactly.

// DryRun names a metric whose results are recorded but do not count towards
// the outcome of the AnalysisRun. MetricName may be a regular expression
// (".*" puts every metric in dry-run mode), as in Argo Rollouts.
type DryRun struct {
	// MetricName is the name of the metric to run in dry-run mode, or a
	// regular expression matching several metric names.
	MetricName string `json:"metricName"`
}

// MeasurementRetention overrides how many measurements are kept in the
// AnalysisRun status for the matching metric(s). Without an entry the
// controller keeps DefaultMeasurementRetentionLimit (10) measurements.
type MeasurementRetention struct {
	// MetricName is the name of the metric, or a regular expression matching
	// several metric names.
	MetricName string `json:"metricName"`
	// Limit is the maximum number of measurements to keep for the metric.
	Limit int32 `json:"limit"`
}

// FieldRef selects a field of the owning object (for example
// "metadata.labels['app']") whose value is used as an argument value.
type FieldRef struct {
	// FieldPath is the path of the field to select, in the same syntax as the
	// Kubernetes downward API (metadata.name, metadata.labels['key'], ...).
	FieldPath string `json:"fieldPath"`
}

// TemplateService asks an Experiment (or a Rollout experiment step) to create
// a Service selecting the pods of one template.
type TemplateService struct {
	// Name of the Service to create. When empty the controller names the
	// Service after the ReplicaSet it creates for the template.
	// +optional
	Name string `json:"name,omitempty"`
}

// AnalysisRunMetadata holds labels and annotations that are added to the
// AnalysisRuns created by a Rollout or an Experiment.
type AnalysisRunMetadata struct {
	// Labels are added to the created AnalysisRuns.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations are added to the created AnalysisRuns.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}
