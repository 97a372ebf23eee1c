package v1alpha1

// RolloutAnalysis creates an AnalysisRun from one or more templates, for a
// canary analysis step or blue-green pre/post-promotion analysis.
type RolloutAnalysis struct {
	// Templates are merged into one AnalysisRun.
	// +optional
	Templates []AnalysisTemplateRef `json:"templates,omitempty"`
	// Args set or override the templates' arguments.
	// +optional
	Args []AnalysisRunArgument `json:"args,omitempty"`
	// DryRun lists metrics whose failures do not fail the run.
	// +optional
	DryRun []DryRun `json:"dryRun,omitempty"`
	// MeasurementRetention keeps more measurements for the named metrics.
	// +optional
	MeasurementRetention []MeasurementRetention `json:"measurementRetention,omitempty"`
	// AnalysisRunMetadata is added to the AnalysisRun.
	// +optional
	AnalysisRunMetadata *AnalysisRunMetadata `json:"analysisRunMetadata,omitempty"`
}

// RolloutAnalysisBackground is a canary's background analysis: it runs for
// the whole update, starting at startingStep.
type RolloutAnalysisBackground struct {
	RolloutAnalysis `json:",inline"`
	// StartingStep is the index of the step at which the analysis starts.
	// Defaults to 0 (the first step).
	// +optional
	StartingStep *int32 `json:"startingStep,omitempty"`
}

// AnalysisTemplateRef names an AnalysisTemplate, or with clusterScope a
// ClusterAnalysisTemplate.
type AnalysisTemplateRef struct {
	// TemplateName is the template's name.
	// +optional
	TemplateName string `json:"templateName"`
	// ClusterScope selects a ClusterAnalysisTemplate. A pointer, as
	// upstream: an explicit false is part of status.currentStepHash.
	// +optional
	ClusterScope *bool `json:"clusterScope,omitempty"`
}

// IsClusterScope reports whether the reference names a ClusterAnalysisTemplate.
func (r AnalysisTemplateRef) IsClusterScope() bool { return r.ClusterScope != nil && *r.ClusterScope }

// AnalysisRunArgument is an argument passed to an AnalysisRun by a Rollout.
type AnalysisRunArgument struct {
	// Name of the argument.
	// +required
	Name string `json:"name"`
	// Value of the argument.
	// +optional
	Value string `json:"value,omitempty"`
	// ValueFrom takes the value from the Rollout.
	// +optional
	ValueFrom *ArgumentValueFrom `json:"valueFrom,omitempty"`
}

// ArgumentValueFrom is where a Rollout argument takes its value from. Set one
// field.
type ArgumentValueFrom struct {
	// PodTemplateHashValue is the rollouts-pod-template-hash of the Stable
	// or the Latest ReplicaSet.
	// +optional
	PodTemplateHashValue *ValueFromPodTemplateHash `json:"podTemplateHashValue,omitempty"`
	// FieldRef is a field of the Rollout, e.g. metadata.labels['region'].
	// +optional
	FieldRef *FieldRef `json:"fieldRef,omitempty"`
}

// ValueFromPodTemplateHash picks the ReplicaSet whose pod template hash an
// argument takes.
type ValueFromPodTemplateHash string

// Values of ArgumentValueFrom.PodTemplateHashValue.
const (
	PodTemplateHashStable ValueFromPodTemplateHash = "Stable"
	PodTemplateHashLatest ValueFromPodTemplateHash = "Latest"
)
