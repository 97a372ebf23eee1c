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
	RolloutReasonSwitchService          = "SwitchService"
	RolloutReasonExperimentCreated      = "ExperimentCreated"

	// Events of the traffic routers' writes (one reason per router, as
	// upstream; Istio's has a space).
	RolloutReasonUpdatedVirtualService  = "Updated VirtualService"
	RolloutReasonUpdatedDestinationRule = "UpdatedDestinationRule"
	RolloutReasonCreatingCanaryIngress  = "CreatingCanaryIngress"
	RolloutReasonPatchingCanaryIngress  = "PatchingCanaryIngress"
	RolloutReasonPatchingALBIngress     = "PatchingALBIngress"
	RolloutReasonTrafficSplitCreated    = "TrafficSplitCreated"
)

// status.message of a Progressing Rollout, as upstream's phase function
// words it: which replica count is not yet where the step wants it.
const (
	RolloutPhaseMessageMoreToUpdate      = "more replicas need to be updated"
	RolloutPhaseMessageBecomingAvailable = "updated replicas are still becoming available"
	RolloutPhaseMessageOldPending        = "old replicas are pending termination"
	RolloutPhaseMessageFinishSteps       = "waiting for rollout to finish steps"
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

// Messages of Rollout Events as upstream words them (fmt formats; their
// arguments are noted).
const (
	// RolloutMessageUpdated: revision number.
	RolloutMessageUpdated = "Rollout updated to revision %d"
	// RolloutMessageNewReplicaSetDetailed: ReplicaSet name, revision number.
	RolloutMessageNewReplicaSetDetailed = "Created ReplicaSet %s (revision %d)"
	// RolloutMessageInitialDeploy is the detail of RolloutMessageCompleted
	// for a Rollout's first revision.
	RolloutMessageInitialDeploy = "Initial deploy"
	// RolloutMessageStepCompleted: step number (1-based), number of steps,
	// the step.
	RolloutMessageStepCompleted = "Rollout step %d/%d completed (%s)"
	// RolloutMessageTrafficWeightUpdated: what changed ("to N", "from N to
	// M", or nothing when only the destinations did).
	RolloutMessageTrafficWeightUpdated = "Traffic weight updated %s"
	// RolloutMessageRollbackToStable and RolloutMessageRollbackWithinWindow
	// (SkipSteps): an update back to the stable or a recent revision skips
	// the steps.
	RolloutMessageRollbackToStable     = "Rollback to stable ReplicaSets"
	RolloutMessageRollbackWithinWindow = "Rollback to active ReplicaSets within RollbackWindow"
	// RolloutMessageAnalysisRunStatus (reason AnalysisRun<Phase>): run type,
	// run name, new phase, previous phase or
	// RolloutMessageNoPreviousStatus.
	RolloutMessageAnalysisRunStatus = "%s Analysis Run '%s' Status New: '%s' Previous: '%s'"
	RolloutMessageNoPreviousStatus  = "NoPreviousStatus"
	// RolloutMessageSwitchService: Service name, old and new pod template
	// hash.
	RolloutMessageSwitchService = "Switched selector for service '%s' from '%s' to '%s'"
	// RolloutMessageExperimentCreated: Experiment name.
	RolloutMessageExperimentCreated = "Created Experiment '%s'"
	// RolloutMessageDestinationRuleUpdated: DestinationRule name, canary
	// subset name and hash, stable subset name and hash.
	RolloutMessageDestinationRuleUpdated = "DestinationRule %s subset updated (%s: %s, %s: %s)"
	// RolloutMessageVirtualServiceWeight: VirtualService name, canary
	// weight.
	RolloutMessageVirtualServiceWeight = "VirtualService `%s` set to desiredWeight '%d'"
	// RolloutMessageIngressWeight (NGINX and ALB): Ingress name, canary
	// weight.
	RolloutMessageIngressWeight = "Updating Ingress `%s` to desiredWeight '%d'"
	// RolloutMessageCanaryIngressCreated (NGINX): Ingress name, canary weight.
	RolloutMessageCanaryIngressCreated = "Creating canary ingress `%s` with weight `%d`"
	// RolloutMessageTrafficSplitCreated: TrafficSplit name.
	RolloutMessageTrafficSplitCreated = "TrafficSplit `%s` created"
)
