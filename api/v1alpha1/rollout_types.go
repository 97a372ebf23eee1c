package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func init() { register(&Rollout{}, &RolloutList{}) }

// Rollout is a Deployment replacement that updates its pods with a canary or
// blue-green strategy, optionally shaping traffic and gating on analysis.
// It exposes /scale like a Deployment so a HorizontalPodAutoscaler can target
// it: the scale's replicas are spec.replicas and status.HPAReplicas, and its
// selector is status.selector.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.HPAReplicas,selectorpath=.status.selector
// +kubebuilder:resource:shortName=ro
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.spec.replicas`,description="Number of desired pods"
// +kubebuilder:printcolumn:name="Current",type=integer,JSONPath=`.status.replicas`,description="Total number of non-terminated pods targeted by this rollout"
// +kubebuilder:printcolumn:name="Up-to-date",type=integer,JSONPath=`.status.updatedReplicas`,description="Total number of non-terminated pods targeted by this rollout that have the desired template spec"
// +kubebuilder:printcolumn:name="Available",type=integer,JSONPath=`.status.availableReplicas`,description="Total number of available pods (ready for at least minReadySeconds) targeted by this rollout"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`,description="Time since resource was created"
type Rollout struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec RolloutSpec `json:"spec"`
	// +optional
	Status RolloutStatus `json:"status,omitempty"`
}

// RolloutList is a list of Rollouts.
//
// +kubebuilder:object:root=true
type RolloutList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Rollout `json:"items"`
}

// RolloutSpec is the desired state of a Rollout.
type RolloutSpec struct {
	// Replicas is the number of desired pods. Defaults to 1 when unset
	// (DefaultReplicas); see Rollout.Replicas.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// Selector is the label query over pods that the Rollout manages. It
	// must match the template's labels (or the labels of the workload named
	// by workloadRef) and cannot change after creation.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message=".spec.selector is immutable"
	Selector *metav1.LabelSelector `json:"selector,omitempty"`

	// Template describes the pods the Rollout creates, as in a Deployment.
	// Leave it empty when workloadRef is used.
	//
	// It is a pointer (unlike apps/v1 Deployment) so that a Rollout that uses
	// workloadRef round-trips through a typed client without gaining an
	// invalid "template.spec.containers: null".
	// +optional
	Template *corev1.PodTemplateSpec `json:"template,omitempty"`

	// WorkloadRef names a workload (e.g. an apps/v1 Deployment) whose pod
	// template the Rollout uses instead of its own template.
	// +optional
	WorkloadRef *ObjectRef `json:"workloadRef,omitempty"`

	// MinReadySeconds is the minimum number of seconds a new pod must be
	// ready, without any container crashing, to count as available.
	// Defaults to 0 (available as soon as ready).
	// +optional
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`

	// RevisionHistoryLimit is the number of old ReplicaSets to retain.
	// Defaults to 10 (DefaultRevisionHistoryLimit).
	// +optional
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`

	// Paused pauses the rollout at its current step. The controller does not
	// advance through steps while paused, but scaling (e.g. by an HPA) still
	// happens. If true when the Rollout is created, replicas are not scaled
	// up from zero until it is promoted.
	// +optional
	Paused bool `json:"paused,omitempty"`

	// ProgressDeadlineSeconds is the maximum time, in seconds, an update may
	// go without progress before the Progressing condition reports
	// ProgressDeadlineExceeded. Time spent paused does not count.
	// Defaults to 600 (DefaultProgressDeadlineSeconds).
	// +optional
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty"`

	// ProgressDeadlineAbort aborts the update when progressDeadlineSeconds
	// is exceeded. Defaults to false.
	// +optional
	ProgressDeadlineAbort bool `json:"progressDeadlineAbort,omitempty"`

	// RestartAt asks the controller to restart, one at a time, every pod
	// created before this time (`kubectl argo rollouts restart`).
	// +optional
	RestartAt *metav1.Time `json:"restartAt,omitempty"`

	// RollbackWindow lets an update back to one of the last N revisions skip
	// the strategy's steps and analysis. Unset by default.
	// +optional
	RollbackWindow *RollbackWindowSpec `json:"rollbackWindow,omitempty"`

	// Analysis holds the history limits for AnalysisRuns and Experiments the
	// Rollout creates.
	// +optional
	Analysis *AnalysisRunStrategy `json:"analysis,omitempty"`

	// Strategy is how the Rollout replaces old pods with new ones.
	// +required
	Strategy RolloutStrategy `json:"strategy"`
}

// ObjectRef names the workload that provides a Rollout's pod template.
type ObjectRef struct {
	// APIVersion of the referent, e.g. apps/v1.
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`
	// Kind of the referent, e.g. Deployment.
	// +optional
	Kind string `json:"kind,omitempty"`
	// Name of the referent, in the Rollout's namespace.
	// +optional
	Name string `json:"name,omitempty"`
	// ScaleDown says whether and when the referenced workload is scaled down
	// once the Rollout takes over: "never" (the default), "onsuccess" (after
	// the Rollout becomes healthy) or "progressively" (as the Rollout scales
	// up). If the Rollout fails, the workload is scaled back up.
	// +optional
	ScaleDown WorkloadScaleDown `json:"scaleDown,omitempty"`
}

// WorkloadScaleDown is how a workload referenced by workloadRef is scaled
// down.
type WorkloadScaleDown string

// Values of ObjectRef.ScaleDown.
const (
	ScaleDownNever         WorkloadScaleDown = "never"
	ScaleDownOnSuccess     WorkloadScaleDown = "onsuccess"
	ScaleDownProgressively WorkloadScaleDown = "progressively"
)

// RollbackWindowSpec bounds which earlier revisions are fast-tracked on
// rollback.
type RollbackWindowSpec struct {
	// Revisions is how many of the most recent revisions a rollback may
	// return to without running steps or analysis.
	// +optional
	Revisions int32 `json:"revisions,omitempty"`
}

// AnalysisRunStrategy limits how many finished AnalysisRuns and Experiments
// a Rollout keeps.
type AnalysisRunStrategy struct {
	// SuccessfulRunHistoryLimit is how many successful AnalysisRuns and
	// Experiments to keep. Defaults to 5 (DefaultSuccessfulRunHistoryLimit).
	// +optional
	SuccessfulRunHistoryLimit *int32 `json:"successfulRunHistoryLimit,omitempty"`
	// UnsuccessfulRunHistoryLimit is how many unsuccessful (Error, Failed,
	// Inconclusive) AnalysisRuns and Experiments to keep. Defaults to 5
	// (DefaultUnsuccessfulRunHistoryLimit).
	// +optional
	UnsuccessfulRunHistoryLimit *int32 `json:"unsuccessfulRunHistoryLimit,omitempty"`
}

// RolloutStrategy holds exactly one update strategy.
type RolloutStrategy struct {
	// BlueGreen runs the new version beside the old one and switches the
	// active Service to it at promotion.
	// +optional
	BlueGreen *BlueGreenStrategy `json:"blueGreen,omitempty"`
	// Canary shifts pods (and, with trafficRouting, traffic) to the new
	// version step by step.
	// +optional
	Canary *CanaryStrategy `json:"canary,omitempty"`
}

// PodTemplateMetadata is extra metadata put on the pods of one ReplicaSet
// role (canary, stable, active or preview) while it holds that role.
type PodTemplateMetadata struct {
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// AntiAffinity asks the scheduler to keep the new ReplicaSet's pods off the
// nodes running the previous ReplicaSet's pods. Set only one of the two.
type AntiAffinity struct {
	// PreferredDuringSchedulingIgnoredDuringExecution adds a weighted,
	// preferred pod anti-affinity term.
	// +optional
	PreferredDuringSchedulingIgnoredDuringExecution *PreferredDuringSchedulingIgnoredDuringExecution `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
	// RequiredDuringSchedulingIgnoredDuringExecution adds a required pod
	// anti-affinity term. It has no fields: `{}` turns it on.
	// +optional
	RequiredDuringSchedulingIgnoredDuringExecution *RequiredDuringSchedulingIgnoredDuringExecution `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// PreferredDuringSchedulingIgnoredDuringExecution is a preferred
// anti-affinity between the new and previous ReplicaSets.
type PreferredDuringSchedulingIgnoredDuringExecution struct {
	// Weight of the preferred anti-affinity term, 1 to 100.
	// +required
	Weight int32 `json:"weight"`
}

// RequiredDuringSchedulingIgnoredDuringExecution is a required anti-affinity
// between the new and previous ReplicaSets.
type RequiredDuringSchedulingIgnoredDuringExecution struct{}
