package podtemplate

import corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

// podOptions are the pod validation options of Validate and ValidateJob.
//
// An API server computes them per request from its feature gates and, on an
// update, from the object it replaces (k8s.io/kubernetes/pkg/api/pod
// GetValidationOptionsFromPodTemplate). Ramp validates for a cluster whose
// version and feature gates it does not know, and the ReplicaSet or Job it
// creates is validated again by that cluster. So:
//
//   - Where the answer depends on the cluster (a feature gate), the option
//     takes the value that accepts more: Ramp reports only what no cluster
//     with the feature would accept. For PodLevelResourcesEnabled and
//     AllowOnlyRecursiveSELinuxChangePolicy that value is false: with its
//     gate off an API server drops pod-level resources instead of validating
//     them, and with SELinuxMount on it allows every seLinuxChangePolicy.
//   - Where an option only tolerates, on an update, what an older API server
//     let through (invalid label values in selectors, non-local projected
//     token paths, ...), it is false, as for every create: those templates
//     are refused by any current API server. The exceptions are the two that
//     Argo Rollouts sets (invalid pod-deletion-cost annotations, hugepages not
//     a multiple of their page size), so Ramp refuses no template Argo
//     Rollouts accepts.
//   - ResourceIsPod is false: a template is not a pod (a template may set a
//     hostPort without a containerPort to match, for one).
//
// TestOptionsAcceptWhatAnAPIServerAccepts checks these against what the API
// server of the vendored version computes, and fails on an option it does
// not know, so that upgrading k8s.io/kubernetes makes someone decide.
var podOptions = corevalidation.PodValidationOptions{
	// Gated, or set by Argo Rollouts.
	AllowInvalidPodDeletionCost:                         true,
	AllowIndivisibleHugePagesValues:                     true,
	AllowRelaxedEnvironmentVariableValidation:           true,
	AllowRelaxedDNSSearchValidation:                     true,
	AllowPodLifecycleSleepActionZeroValue:               true,
	AllowSidecarResizePolicy:                            true,
	AllowMatchLabelKeysInPodTopologySpread:              true,
	AllowMatchLabelKeysInPodTopologySpreadSelectorMerge: true,
	AllowEnvFilesValidation:                             true,
	AllowContainerRestartPolicyRules:                    true,
	AllowRestartAllContainers:                           true,
	AllowTaintTolerationComparisonOperators:             true,
	AllowUserNamespacesHostNetworkSupport:               true,
	AllowImageVolumeWithDigest:                          true,
	InPlacePodLevelResourcesVerticalScalingEnabled:      true,
	PodLevelResourcesEnabled:                            false,
	AllowOnlyRecursiveSELinuxChangePolicy:               false,

	// Tolerated on updates only.
	AllowInvalidLabelValueInSelector:                        false,
	AllowInvalidTopologySpreadConstraintLabelSelector:       false,
	AllowNonLocalProjectedTokenPath:                         false,
	AllowNamespacedSysctlsForHostNetAndHostIPC:              false,
	AllowInvalidLabelValueInRequiredNodeAffinity:            false,
	AllowExistingRestartContainerForNonSidecarInitContainer: false,
	AllowUserNamespacesWithVolumeDevices:                    false,
	OldPodViolatesMatchLabelKeysValidation:                  false,
	OldPodViolatesLegacyMatchLabelKeysValidation:            false,

	ResourceIsPod: false,
}
