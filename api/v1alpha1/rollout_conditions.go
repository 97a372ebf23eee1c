package v1alpha1

// Reasons of Rollout conditions and events. Argo CD, the Argo Rollouts
// kubectl plugin and users' alerts match on these strings, so they are part of
// the API and keep Argo Rollouts' spelling.
const (
	// InvalidSpec condition.
	RolloutReasonInvalidSpec = "InvalidSpec"

	// Available condition (True and False alike).
	RolloutReasonAvailable = "AvailableReason"

	// Progressing condition.
	RolloutReasonReplicaSetUpdated        = "ReplicaSetUpdated"
	RolloutReasonReplicaSetCreateError    = "ReplicaSetCreateError"
	RolloutReasonNewReplicaSetCreated     = "NewReplicaSetCreated"
	RolloutReasonFoundNewReplicaSet       = "FoundNewReplicaSet"
	RolloutReasonNewReplicaSetAvailable   = "NewReplicaSetAvailable"
	RolloutReasonReplicaSetNotAvailable   = "ReplicaSetNotAvailable"
	RolloutReasonProgressDeadlineExceeded = "ProgressDeadlineExceeded"
	RolloutReasonAborted                  = "RolloutAborted"
	RolloutReasonRetry                    = "RolloutRetry"
	RolloutReasonAnalysisRunFailed        = "AnalysisRunFailed"
	RolloutReasonExperimentFailed         = "ExperimentFailed"
	RolloutReasonServiceReferenceError    = "ServiceReferenceError"

	// Paused and Progressing conditions.
	RolloutReasonPaused  = "RolloutPaused"
	RolloutReasonResumed = "RolloutResumed"

	// Completed condition (True and False).
	RolloutReasonCompleted    = "RolloutCompleted"
	RolloutReasonNotCompleted = "RolloutNotCompleted"

	// Healthy condition (True and False alike).
	RolloutReasonHealthy = "RolloutHealthy"

	// Events only.
	RolloutReasonUpdated                = "RolloutUpdated"
	RolloutReasonStepCompleted          = "RolloutStepCompleted"
	RolloutReasonSkipSteps              = "SkipSteps"
	RolloutReasonTrafficWeightUpdated   = "TrafficWeightUpdated"
	RolloutReasonScalingReplicaSet      = "ScalingReplicaSet"
	RolloutReasonDeleted                = "RolloutDeleted"
	RolloutReasonTargetGroupVerified    = "TargetGroupVerified"
	RolloutReasonTargetGroupUnverified  = "TargetGroupUnverified"
	RolloutReasonTargetGroupVerifyError = "TargetGroupVerifyError"
	RolloutReasonWeightVerifyError      = "WeightVerifyError"
	RolloutReasonLoadBalancerNotFound   = "LoadBalancerNotFound"
)

// Messages of Rollout conditions that tools display verbatim. The ones with
// verbs are fmt formats; their arguments are noted.
const (
	RolloutMessageAvailable    = "Rollout has minimum availability"
	RolloutMessageNotAvailable = "Rollout does not have minimum availability"
	RolloutMessageHealthy      = "Rollout is healthy"
	RolloutMessageNotHealthy   = "Rollout is not healthy"
	RolloutMessagePaused       = "Rollout is paused"
	RolloutMessageResumed      = "Rollout is resumed"
	RolloutMessageRetry        = "Retrying Rollout after abort"
	// RolloutMessageProgressing: rollout name.
	RolloutMessageProgressing = "Rollout %q is progressing."
	// RolloutMessageTimedOut: rollout name.
	RolloutMessageTimedOut = "Rollout %q has timed out progressing."
	// RolloutMessageReplicaSetTimedOut: ReplicaSet name.
	RolloutMessageReplicaSetTimedOut = "ReplicaSet %q has timed out progressing."
	// RolloutMessageReplicaSetCompleted: ReplicaSet name.
	RolloutMessageReplicaSetCompleted = "ReplicaSet %q has successfully progressed."
	// RolloutMessageAborted: revision number.
	RolloutMessageAborted = "Rollout aborted update to revision %d"
	// RolloutMessageCompleted: revision number, pod template hash, detail.
	RolloutMessageCompleted = "Rollout completed update to revision %d (%s): %s"
	// RolloutMessageNotCompleted: revision number, pod template hash.
	RolloutMessageNotCompleted = "Rollout not completed, started update to revision %d (%s)"
	// RolloutMessageMissingField: field path.
	RolloutMessageMissingField = "Rollout has missing field '%s'"
	// RolloutMessageSelectAll is set when spec.selector is empty.
	RolloutMessageSelectAll = "This rollout is selecting all pods. A non-empty selector is required."
)
