package v1alpha1

// HPAAccountingAnnotation chooses how a canary's pods are counted while a
// HorizontalPodAutoscaler targets the Rollout. Unset (the default): with
// trafficRouting the canary's pods are taken from the stable ReplicaSet, so
// the pods the HPA sees stay at spec.replicas. HPAAccountingSurge keeps Argo
// Rollouts' behaviour: the stable ReplicaSet stays full beside the canary
// (unless dynamicStableScale), and the HPA counts both.
const HPAAccountingAnnotation = "rollout.ramp.dev/hpa-accounting"

// HPAAccountingSurge is the opt-out value of HPAAccountingAnnotation.
const HPAAccountingSurge = "surge"

// Reasons of the HPAAccounting condition (Ramp), also used for its Event.
const (
	// HPAReasonFromStable: canary pods are taken from the stable ReplicaSet.
	HPAReasonFromStable = "CanaryFromStable"
	// HPAReasonSurge: canary pods are added beside a full stable ReplicaSet.
	HPAReasonSurge = "Surge"
	// HPAReasonReplicaMath: a canary without trafficRouting replaces stable
	// pods by its replica math anyway.
	HPAReasonReplicaMath = "ReplicaMath"
	// HPAReasonActiveOnly: blue-green; the HPA counts the active ReplicaSet.
	HPAReasonActiveOnly = "ActiveOnly"
)

// HPAAccountingSurge reports whether the Rollout opted out of Ramp's HPA
// accounting with rollout.ramp.dev/hpa-accounting: surge.
func (ro *Rollout) HPAAccountingSurge() bool {
	return ro.Annotations[HPAAccountingAnnotation] == HPAAccountingSurge
}
