package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func init() {
	register(
		&AnalysisTemplate{}, &AnalysisTemplateList{},
		&ClusterAnalysisTemplate{}, &ClusterAnalysisTemplateList{},
	)
}

// AnalysisTemplate describes how to analyse a release: which metrics to
// measure, how often, and which results count as success or failure. It is
// instantiated as an AnalysisRun by a Rollout, an Experiment or a user.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=analysistemplates,scope=Namespaced,shortName=at
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since resource was created"
type AnalysisTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec AnalysisTemplateSpec `json:"spec"`
}

// AnalysisTemplateList is a list of AnalysisTemplates.
//
// +kubebuilder:object:root=true
type AnalysisTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []AnalysisTemplate `json:"items"`
}

// ClusterAnalysisTemplate is a cluster-scoped AnalysisTemplate that any
// Rollout or Experiment in the cluster may reference (clusterScope: true).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=clusteranalysistemplates,scope=Cluster,shortName=cat
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since resource was created"
type ClusterAnalysisTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec AnalysisTemplateSpec `json:"spec"`
}

// ClusterAnalysisTemplateList is a list of ClusterAnalysisTemplates.
//
// +kubebuilder:object:root=true
type ClusterAnalysisTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []ClusterAnalysisTemplate `json:"items"`
}

// AnalysisTemplateSpec is the specification shared by AnalysisTemplate and
// ClusterAnalysisTemplate.
type AnalysisTemplateSpec struct {
	// Metrics are the measurements taken by an AnalysisRun created from this
	// template. A template may hold no metrics of its own when it only
	// combines other templates (see Templates).
	// +optional
	Metrics []Metric `json:"metrics,omitempty"`
	// Args are the arguments the metrics refer to as "{{args.NAME}}". An
	// argument without a value (or valueFrom) must be supplied by whoever
	// creates the AnalysisRun.
	// +optional
	Args []Argument `json:"args,omitempty"`
	// DryRun lists metrics whose results do not affect the run's outcome.
	// +optional
	DryRun []DryRun `json:"dryRun,omitempty"`
	// MeasurementRetention overrides how many measurements are kept per metric.
	// +optional
	MeasurementRetention []MeasurementRetention `json:"measurementRetention,omitempty"`
	// Templates are other AnalysisTemplates or ClusterAnalysisTemplates whose
	// metrics, args, dryRun and measurementRetention are merged into this
	// template when an AnalysisRun is built from it.
	// +optional
	Templates []IncludedAnalysisTemplate `json:"templates,omitempty"`
}

// IncludedAnalysisTemplate references an AnalysisTemplate (or, with
// clusterScope, a ClusterAnalysisTemplate) from inside another template.
// Same JSON shape as the template references in a Rollout's analysis.
type IncludedAnalysisTemplate struct {
	// TemplateName is the name of the referenced template.
	TemplateName string `json:"templateName"`
	// ClusterScope selects a ClusterAnalysisTemplate instead of an
	// AnalysisTemplate in the same namespace.
	// +optional
	ClusterScope bool `json:"clusterScope,omitempty"`
}

// Argument is an input of an AnalysisTemplate or AnalysisRun.
type Argument struct {
	// Name of the argument, referenced as "{{args.NAME}}".
	Name string `json:"name"`
	// Value of the argument. In a template it is the default value.
	// +optional
	Value *string `json:"value,omitempty"`
	// ValueFrom reads the value from a Secret or from a field of the owner.
	// +optional
	ValueFrom *ValueFrom `json:"valueFrom,omitempty"`
}

// ValueFrom is the source of an argument value.
type ValueFrom struct {
	// SecretKeyRef reads the value from a key of a Secret in the namespace of
	// the AnalysisRun. Metrics using such a value have it redacted in status.
	// +optional
	SecretKeyRef *SecretKeyRef `json:"secretKeyRef,omitempty"`
	// FieldRef reads the value from a field of the object owning the run.
	// +optional
	FieldRef *FieldRef `json:"fieldRef,omitempty"`
}

// SecretKeyRef selects a key of a Secret.
type SecretKeyRef struct {
	// Name of the Secret.
	Name string `json:"name"`
	// Key within the Secret.
	Key string `json:"key"`
}
