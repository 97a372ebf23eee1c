package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RolloutStatus is the observed state of a Rollout.
type RolloutStatus struct {
	// Abort is true while the update is aborted: the canary or preview is
	// scaled down and traffic goes back to stable.
	// +optional
	Abort bool `json:"abort,omitempty"`

	// PauseConditions are the reasons the controller paused the Rollout;
	// promotion clears them.
	// +optional
	PauseConditions []PauseCondition `json:"pauseConditions,omitempty"`

	// ControllerPause is true when the controller, not the user, paused the
	// Rollout.
	// +optional
	ControllerPause bool `json:"controllerPause,omitempty"`

	// AbortedAt is when the update was aborted.
	// +optional
	AbortedAt *metav1.Time `json:"abortedAt,omitempty"`

	// CurrentPodHash is the pod template hash of the newest ReplicaSet.
	// +optional
	CurrentPodHash string `json:"currentPodHash,omitempty"`

	// CurrentStepHash is a hash of spec.strategy.canary.steps, used to
	// notice that the steps changed.
	// +optional
	CurrentStepHash string `json:"currentStepHash,omitempty"`

	// Replicas is the number of non-terminated pods targeted by the Rollout.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`

	// UpdatedReplicas is the number of non-terminated pods with the desired
	// template.
	// +optional
	UpdatedReplicas int32 `json:"updatedReplicas,omitempty"`

	// ReadyReplicas is the number of ready pods.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// AvailableReplicas is the number of pods ready for at least
	// minReadySeconds.
	// +optional
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`

	// CurrentStepIndex is the index of the current canary step; it equals
	// len(steps) once all steps are done.
	// +optional
	CurrentStepIndex *int32 `json:"currentStepIndex,omitempty"`

	// CollisionCount counts pod template hash collisions; the controller
	// mixes it into the hash to make the next name unique.
	// +optional
	CollisionCount *int32 `json:"collisionCount,omitempty"`

	// ObservedGeneration is the metadata.generation the controller last
	// acted on, as a decimal string (unlike Deployment's integer).
	// +optional
	ObservedGeneration string `json:"observedGeneration,omitempty"`

	// Conditions are the latest observations of the Rollout's state.
	// +optional
	Conditions []RolloutCondition `json:"conditions,omitempty"`

	// Canary is the state of a canary update.
	// +optional
	Canary CanaryStatus `json:"canary,omitempty"`

	// BlueGreen is the state of a blue-green update.
	// +optional
	BlueGreen BlueGreenStatus `json:"blueGreen,omitempty"`

	// HPAReplicas is the replica count reported through the /scale
	// subresource: the pods of the ReplicaSets an HPA should count.
	// +optional
	HPAReplicas int32 `json:"HPAReplicas,omitempty"`

	// Selector is the serialized label selector reported through the /scale
	// subresource, for the HPA to find the Rollout's pods.
	// +optional
	Selector string `json:"selector,omitempty"`

	// StableRS is the pod template hash of the stable ReplicaSet.
	// +optional
	StableRS string `json:"stableRS,omitempty"`

	// RestartedAt is when the last restart requested by spec.restartAt
	// completed.
	// +optional
	RestartedAt *metav1.Time `json:"restartedAt,omitempty"`

	// PromoteFull is true when the update was promoted to the end, skipping
	// the remaining steps, analysis and pauses.
	// +optional
	PromoteFull bool `json:"promoteFull,omitempty"`

	// Phase summarizes the Rollout: Healthy, Progressing, Paused or Degraded.
	// +optional
	Phase RolloutPhase `json:"phase,omitempty"`

	// Message explains the phase.
	// +optional
	Message string `json:"message,omitempty"`

	// WorkloadObservedGeneration is the generation of the workload named by
	// workloadRef that the controller last acted on, as a decimal string.
	// +optional
	WorkloadObservedGeneration string `json:"workloadObservedGeneration,omitempty"`

	// ALB is the AWS load balancer state of the (first) ALB Ingress.
	// +optional
	ALB *ALBStatus `json:"alb,omitempty"`

	// ALBs is the AWS load balancer state of every ALB Ingress.
	// +optional
	ALBs []ALBStatus `json:"albs,omitempty"`
}

// RolloutPhase summarizes a Rollout's state.
type RolloutPhase string

// Values of RolloutStatus.Phase.
const (
	RolloutPhaseHealthy     RolloutPhase = "Healthy"
	RolloutPhaseDegraded    RolloutPhase = "Degraded"
	RolloutPhaseProgressing RolloutPhase = "Progressing"
	RolloutPhasePaused      RolloutPhase = "Paused"
)

// PauseCondition records why and since when the controller paused.
type PauseCondition struct {
	// +required
	Reason PauseReason `json:"reason"`
	// +required
	StartTime metav1.Time `json:"startTime"`
}

// PauseReason is why the controller paused a Rollout.
type PauseReason string

// Values of PauseCondition.Reason.
const (
	// PauseReasonInconclusiveAnalysis: an AnalysisRun ended Inconclusive.
	PauseReasonInconclusiveAnalysis PauseReason = "InconclusiveAnalysisRun"
	// PauseReasonInconclusiveExperiment: an Experiment ended Inconclusive.
	PauseReasonInconclusiveExperiment PauseReason = "InconclusiveExperiment"
	// PauseReasonCanaryPauseStep: a canary pause step.
	PauseReasonCanaryPauseStep PauseReason = "CanaryPauseStep"
	// PauseReasonBlueGreenPause: a blue-green update waiting for promotion.
	PauseReasonBlueGreenPause PauseReason = "BlueGreenPause"
)

// RolloutCondition is one observation of a Rollout's state.
type RolloutCondition struct {
	// +required
	Type RolloutConditionType `json:"type"`
	// Status is True, False or Unknown.
	// +required
	Status corev1.ConditionStatus `json:"status"`
	// LastUpdateTime is when the condition was last written.
	// +required
	LastUpdateTime metav1.Time `json:"lastUpdateTime"`
	// LastTransitionTime is when status last changed.
	// +required
	LastTransitionTime metav1.Time `json:"lastTransitionTime"`
	// Reason is a CamelCase reason for the last transition.
	// +required
	Reason string `json:"reason"`
	// Message explains the last transition.
	// +required
	Message string `json:"message"`
}

// RolloutConditionType is the type of a RolloutCondition.
type RolloutConditionType string

// Values of RolloutCondition.Type.
const (
	// RolloutAvailable: the Rollout has minimum availability.
	RolloutAvailable RolloutConditionType = "Available"
	// RolloutProgressing: the update is progressing, complete, aborted or
	// past its progress deadline (see the reason).
	RolloutProgressing RolloutConditionType = "Progressing"
	// RolloutReplicaFailure: a ReplicaSet failed to create or delete pods.
	RolloutReplicaFailure RolloutConditionType = "ReplicaFailure"
	// RolloutPaused: the Rollout is paused.
	RolloutPaused RolloutConditionType = "Paused"
	// RolloutInvalidSpec: the spec is invalid; the message says why.
	RolloutInvalidSpec RolloutConditionType = "InvalidSpec"
	// RolloutCompleted: the newest ReplicaSet is the stable one.
	RolloutCompleted RolloutConditionType = "Completed"
	// RolloutHealthy: every replica is updated and available, and the
	// strategy has finished.
	RolloutHealthy RolloutConditionType = "Healthy"
	// RolloutHPAAccounting (Ramp): a HorizontalPodAutoscaler targets the
	// Rollout; the message says how its pods are counted during an update.
	// Absent when no HPA targets the Rollout.
	RolloutHPAAccounting RolloutConditionType = "HPAAccounting"
)

// CanaryStatus is the state of a canary update.
type CanaryStatus struct {
	// CurrentStepAnalysisRunStatus is the AnalysisRun of the current step.
	// +optional
	CurrentStepAnalysisRunStatus *RolloutAnalysisRunStatus `json:"currentStepAnalysisRunStatus,omitempty"`
	// CurrentBackgroundAnalysisRunStatus is the background AnalysisRun.
	// +optional
	CurrentBackgroundAnalysisRunStatus *RolloutAnalysisRunStatus `json:"currentBackgroundAnalysisRunStatus,omitempty"`
	// CurrentExperiment is the name of the current step's Experiment.
	// +optional
	CurrentExperiment string `json:"currentExperiment,omitempty"`
	// Weights are the traffic weights last set on the traffic routers.
	// +optional
	Weights *TrafficWeights `json:"weights,omitempty"`
	// StablePingPong is which pingPong Service ("ping" or "pong") is stable.
	// +optional
	StablePingPong PingPongType `json:"stablePingPong,omitempty"`
	// StepPluginStatuses are the states of step plugin runs.
	// +optional
	StepPluginStatuses []StepPluginStatus `json:"stepPluginStatuses,omitempty"`
	// PauseStartTime (Ramp) is when the current timed pause step began, to
	// the microsecond: the CanaryPauseStep pause condition's startTime keeps
	// upstream's second resolution. Set only beside that condition; read
	// only when it falls within the condition's startTime second and is not
	// in the future (otherwise the pause counts from the end of that
	// second, so it can only last longer). Upstream ignores it.
	// +optional
	PauseStartTime *metav1.MicroTime `json:"pauseStartTime,omitempty"`
}

// PingPongType names one of the two pingPong Services.
type PingPongType string

// Values of CanaryStatus.StablePingPong.
const (
	PPPing PingPongType = "ping"
	PPPong PingPongType = "pong"
)

// RolloutAnalysisRunStatus is a summary of an AnalysisRun a Rollout owns.
type RolloutAnalysisRunStatus struct {
	// +required
	Name string `json:"name"`
	// +required
	Status AnalysisPhase `json:"status"`
	// +optional
	Message string `json:"message,omitempty"`
}

// TrafficWeights are the weights set on the traffic routers.
type TrafficWeights struct {
	// +required
	Canary WeightDestination `json:"canary"`
	// +required
	Stable WeightDestination `json:"stable"`
	// Additional are experiment templates that receive traffic.
	// +optional
	Additional []WeightDestination `json:"additional,omitempty"`
	// Verified is whether the weights were verified at the load balancer;
	// unset when not verified.
	// +optional
	Verified *bool `json:"verified,omitempty"`
}

// WeightDestination is the weight sent to one Service and ReplicaSet.
type WeightDestination struct {
	// +required
	Weight int32 `json:"weight"`
	// +optional
	ServiceName string `json:"serviceName,omitempty"`
	// +optional
	PodTemplateHash string `json:"podTemplateHash,omitempty"`
}

// StepPluginStatus is the state of one step plugin operation.
type StepPluginStatus struct {
	// Index of the canary step.
	// +required
	Index int32 `json:"index"`
	// Name of the step plugin.
	// +required
	Name string `json:"name"`
	// Operation is Run, Terminate or Abort.
	// +required
	Operation StepPluginOperation `json:"operation"`
	// +optional
	Phase StepPluginPhase `json:"phase,omitempty"`
	// +optional
	Message string `json:"message,omitempty"`
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// +optional
	UpdatedAt *metav1.Time `json:"updatedAt,omitempty"`
	// +optional
	FinishedAt *metav1.Time `json:"finishedAt,omitempty"`
	// Backoff is the duration before the plugin runs again, e.g. 30s.
	// +optional
	Backoff string `json:"backoff,omitempty"`
	// Executions is how many times the operation ran.
	// +optional
	Executions int32 `json:"executions,omitempty"`
	// Disabled is true when the plugin is disabled.
	// +optional
	Disabled bool `json:"disabled,omitempty"`
	// Status is the plugin's own state, kept as is.
	// +optional
	Status *apiextensionsv1.JSON `json:"status,omitempty"`
}

// StepPluginOperation is the operation a step plugin runs.
type StepPluginOperation string

// Values of StepPluginStatus.Operation.
const (
	StepPluginOperationRun       StepPluginOperation = "Run"
	StepPluginOperationTerminate StepPluginOperation = "Terminate"
	StepPluginOperationAbort     StepPluginOperation = "Abort"
)

// StepPluginPhase is the phase of a step plugin operation.
type StepPluginPhase string

// Values of StepPluginStatus.Phase.
const (
	StepPluginPhaseRunning    StepPluginPhase = "Running"
	StepPluginPhaseSuccessful StepPluginPhase = "Successful"
	StepPluginPhaseFailed     StepPluginPhase = "Failed"
	StepPluginPhaseError      StepPluginPhase = "Error"
)

// BlueGreenStatus is the state of a blue-green update.
type BlueGreenStatus struct {
	// PreviewSelector is the pod template hash the preview Service selects.
	// +optional
	PreviewSelector string `json:"previewSelector,omitempty"`
	// ActiveSelector is the pod template hash the active Service selects.
	// +optional
	ActiveSelector string `json:"activeSelector,omitempty"`
	// ScaleUpPreviewCheckPoint is true once the preview ReplicaSet was
	// scaled up to spec.replicas for promotion (previewReplicaCount).
	// +optional
	ScaleUpPreviewCheckPoint bool `json:"scaleUpPreviewCheckPoint,omitempty"`
	// PrePromotionAnalysisRunStatus is the pre-promotion AnalysisRun.
	// +optional
	PrePromotionAnalysisRunStatus *RolloutAnalysisRunStatus `json:"prePromotionAnalysisRunStatus,omitempty"`
	// PostPromotionAnalysisRunStatus is the post-promotion AnalysisRun.
	// +optional
	PostPromotionAnalysisRunStatus *RolloutAnalysisRunStatus `json:"postPromotionAnalysisRunStatus,omitempty"`
	// PauseStartTime (Ramp) is when the autoPromotionSeconds pause began, to
	// the microsecond, beside the BlueGreenPause pause condition; read as
	// status.canary.pauseStartTime is.
	// +optional
	PauseStartTime *metav1.MicroTime `json:"pauseStartTime,omitempty"`
}

// ALBStatus is the AWS state behind one ALB Ingress.
type ALBStatus struct {
	// +optional
	LoadBalancer *AwsResourceRef `json:"loadBalancer,omitempty"`
	// +optional
	CanaryTargetGroup *AwsResourceRef `json:"canaryTargetGroup,omitempty"`
	// +optional
	StableTargetGroup *AwsResourceRef `json:"stableTargetGroup,omitempty"`
	// Ingress is the Ingress's name.
	// +optional
	Ingress string `json:"ingress,omitempty"`
}

// AwsResourceRef identifies an AWS resource.
type AwsResourceRef struct {
	// +required
	Name string `json:"name"`
	// +required
	ARN string `json:"arn"`
	// FullName is the name used in CloudWatch metric dimensions.
	// +optional
	FullName string `json:"fullName,omitempty"`
}
