package v1alpha1

// Reasons and messages of the Experiment Progressing condition, as Argo
// Rollouts words them (it shares the ReplicaSet reasons with Rollouts).
const (
	ExperimentReasonReplicaSetUpdated      = RolloutReasonReplicaSetUpdated
	ExperimentReasonNewReplicaSetAvailable = RolloutReasonNewReplicaSetAvailable
	ExperimentReasonCompleted              = "ExperimentCompleted"
	ExperimentReasonInvalidSpec            = RolloutReasonInvalidSpec

	// ExperimentMessageProgressing: Experiment name.
	ExperimentMessageProgressing = "Experiment %q is progressing."
	// ExperimentMessageRunning: Experiment name.
	ExperimentMessageRunning = "Experiment %q is running."
)
