package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func init() {
	register(&Experiment{}, &ExperimentList{})
}

// Experiment runs one or more ReplicaSets (templates) for a limited time,
// optionally with AnalysisRuns against them, e.g. a baseline and a canary
// side by side. A Rollout creates one for each experiment step.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=experiments,scope=Namespaced,shortName=exp
// +kubebuilder:printcolumn:name="Status",type="string",JSONPath=".status.phase",description="Experiment status"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since resource was created"
type Experiment struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ExperimentSpec `json:"spec"`
	// +optional
	Status ExperimentStatus `json:"status,omitzero"`
}

// ExperimentList is a list of Experiments.
//
// +kubebuilder:object:root=true
type ExperimentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Experiment `json:"items"`
}

// ExperimentSpec is the specification of an Experiment.
type ExperimentSpec struct {
	// Templates are the ReplicaSets to run.
	Templates []TemplateSpec `json:"templates"`
	// Duration is how long the experiment runs once all templates are
	// available. When empty it runs until terminated or until an analysis
	// that is requiredForCompletion completes.
	// +optional
	Duration DurationString `json:"duration,omitempty"`
	// ProgressDeadlineSeconds is how long a template may take to become
	// available before the experiment fails. Default 600.
	// +optional
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty"`
	// Terminate ends the experiment: templates are scaled down and running
	// analyses are terminated.
	// +optional
	Terminate bool `json:"terminate,omitempty"`
	// Analyses are AnalysisRuns to create for the experiment.
	// +optional
	Analyses []ExperimentAnalysisTemplateRef `json:"analyses,omitempty"`
	// ScaleDownDelaySeconds delays scaling down the templates' ReplicaSets
	// (and deleting their Services) after the experiment completes.
	// Default 30.
	// +optional
	ScaleDownDelaySeconds *int32 `json:"scaleDownDelaySeconds,omitempty"`
	// DryRun lists metrics that run in dry-run mode in every analysis.
	// +optional
	DryRun []DryRun `json:"dryRun,omitempty"`
	// MeasurementRetention overrides measurement retention in every analysis.
	// +optional
	MeasurementRetention []MeasurementRetention `json:"measurementRetention,omitempty"`
	// AnalysisRunMetadata holds labels and annotations added to the
	// AnalysisRuns the experiment creates.
	// +optional
	AnalysisRunMetadata AnalysisRunMetadata `json:"analysisRunMetadata,omitzero"`
}

// TemplateSpec is one ReplicaSet of an Experiment.
type TemplateSpec struct {
	// Name of the template, unique within the experiment.
	Name string `json:"name"`
	// Replicas is the number of pods. Default 1.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
	// MinReadySeconds is how long a pod must be ready to count as available.
	// +optional
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// Selector of the pods. It must match the template's labels.
	Selector *metav1.LabelSelector `json:"selector"`
	// Template is the pod template.
	Template corev1.PodTemplateSpec `json:"template"`
	// Service, when set, creates a Service selecting the template's pods.
	// +optional
	Service *TemplateService `json:"service,omitempty"`
}

// ExperimentAnalysisTemplateRef asks an Experiment to run an AnalysisRun
// built from a template.
type ExperimentAnalysisTemplateRef struct {
	// Name of the analysis within the experiment.
	Name string `json:"name"`
	// TemplateName is the AnalysisTemplate (or ClusterAnalysisTemplate) to use.
	TemplateName string `json:"templateName"`
	// ClusterScope selects a ClusterAnalysisTemplate.
	// +optional
	ClusterScope bool `json:"clusterScope,omitempty"`
	// Args are passed to the template.
	// +optional
	Args []Argument `json:"args,omitempty"`
	// RequiredForCompletion makes the experiment complete when this
	// analysis completes (successfully), even without a duration.
	// +optional
	RequiredForCompletion bool `json:"requiredForCompletion,omitempty"`
}

// ExperimentStatus is the observed state of an Experiment.
type ExperimentStatus struct {
	// Phase of the experiment.
	// +optional
	Phase AnalysisPhase `json:"phase,omitempty"`
	// Message explains the phase.
	// +optional
	Message string `json:"message,omitempty"`
	// TemplateStatuses holds the state of each template.
	// +optional
	TemplateStatuses []TemplateStatus `json:"templateStatuses,omitempty"`
	// AvailableAt is when all templates first became available; the
	// duration counts from then.
	// +optional
	AvailableAt *metav1.Time `json:"availableAt,omitempty"`
	// Conditions are the latest observations of the experiment's state.
	// +optional
	Conditions []ExperimentCondition `json:"conditions,omitempty"`
	// AnalysisRuns holds the state of each analysis.
	// +optional
	AnalysisRuns []ExperimentAnalysisRunStatus `json:"analysisRuns,omitempty"`
}

// TemplateStatus is the state of one template of an Experiment.
type TemplateStatus struct {
	// Name of the template.
	Name string `json:"name"`
	// Replicas is the number of pods of the template's ReplicaSet.
	Replicas int32 `json:"replicas"`
	// UpdatedReplicas is the number of pods with the current template.
	UpdatedReplicas int32 `json:"updatedReplicas"`
	// ReadyReplicas is the number of ready pods.
	ReadyReplicas int32 `json:"readyReplicas"`
	// AvailableReplicas is the number of available pods.
	AvailableReplicas int32 `json:"availableReplicas"`
	// CollisionCount is used to avoid ReplicaSet name collisions.
	// +optional
	CollisionCount *int32 `json:"collisionCount,omitempty"`
	// Status of the template.
	// +optional
	Status TemplateStatusCode `json:"status,omitempty"`
	// Message explains the status.
	// +optional
	Message string `json:"message,omitempty"`
	// LastTransitionTime is when the status last changed.
	// +optional
	LastTransitionTime *metav1.Time `json:"lastTransitionTime,omitempty"`
	// ServiceName is the Service created for the template, if any.
	// +optional
	ServiceName string `json:"serviceName,omitempty"`
	// PodTemplateHash is the pod-template-hash of the template's ReplicaSet.
	// +optional
	PodTemplateHash string `json:"podTemplateHash,omitempty"`
}

// TemplateStatusCode is the state of an Experiment template.
type TemplateStatusCode string

// Template states, as in Argo Rollouts.
const (
	TemplateStatusProgressing TemplateStatusCode = "Progressing"
	TemplateStatusRunning     TemplateStatusCode = "Running"
	TemplateStatusSuccessful  TemplateStatusCode = "Successful"
	TemplateStatusFailed      TemplateStatusCode = "Failed"
	TemplateStatusError       TemplateStatusCode = "Error"
)

// Completed reports whether the template state is terminal.
func (c TemplateStatusCode) Completed() bool {
	switch c {
	case TemplateStatusSuccessful, TemplateStatusFailed, TemplateStatusError:
		return true
	}
	return false
}

// ExperimentConditionType is the type of an Experiment condition.
type ExperimentConditionType string

// Experiment condition types, as in Argo Rollouts.
const (
	// ExperimentProgressing is True while the experiment is running or has
	// completed successfully, False when it failed to progress.
	ExperimentProgressing ExperimentConditionType = "Progressing"
	// InvalidExperimentSpec is True when the spec cannot be acted upon.
	InvalidExperimentSpec ExperimentConditionType = "InvalidSpec"
)

// ExperimentCondition is an observation of an Experiment's state.
type ExperimentCondition struct {
	// Type of the condition.
	Type ExperimentConditionType `json:"type"`
	// Status of the condition: True, False or Unknown.
	Status corev1.ConditionStatus `json:"status"`
	// LastUpdateTime is when the condition was last updated.
	LastUpdateTime metav1.Time `json:"lastUpdateTime"`
	// LastTransitionTime is when the status last changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime"`
	// Reason is a one-word CamelCase reason for the last transition.
	Reason string `json:"reason"`
	// Message is a human-readable explanation.
	Message string `json:"message"`
}

// ExperimentAnalysisRunStatus is the state of one analysis of an Experiment.
type ExperimentAnalysisRunStatus struct {
	// Name of the analysis (ExperimentAnalysisTemplateRef.name).
	Name string `json:"name"`
	// AnalysisRun is the name of the AnalysisRun created for it.
	AnalysisRun string `json:"analysisRun"`
	// Phase of the AnalysisRun.
	Phase AnalysisPhase `json:"phase"`
	// Message of the AnalysisRun.
	// +optional
	Message string `json:"message,omitempty"`
}
