package podtemplate

import (
	"reflect"
	"testing"

	"k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/core"
)

// TestOptionsAcceptWhatAnAPIServerAccepts: where the API server of the
// vendored version, with its default feature gates, accepts more on a create
// than podOptions do, the options are wrong; an option this test does not
// know (a new k8s.io/kubernetes) fails it until someone decides its value
// (see podOptions).
func TestOptionsAcceptWhatAnAPIServerAccepts(t *testing.T) {
	server := pod.GetValidationOptionsFromPodTemplate(&core.PodTemplateSpec{}, nil)
	// Options that accept more when false; the others accept more when true.
	narrowing := map[string]bool{"ResourceIsPod": true, "PodLevelResourcesEnabled": true, "AllowOnlyRecursiveSELinuxChangePolicy": true}
	// Options only an update sets (they tolerate what an older object has),
	// and that select between two checks of matchLabelKeys by the old pod.
	updateOnly := map[string]bool{
		"AllowInvalidLabelValueInSelector": true, "AllowInvalidTopologySpreadConstraintLabelSelector": true,
		"AllowNonLocalProjectedTokenPath": true, "AllowNamespacedSysctlsForHostNetAndHostIPC": true,
		"AllowInvalidLabelValueInRequiredNodeAffinity": true, "AllowExistingRestartContainerForNonSidecarInitContainer": true,
		"AllowUserNamespacesWithVolumeDevices":   true,
		"OldPodViolatesMatchLabelKeysValidation": true, "OldPodViolatesLegacyMatchLabelKeysValidation": true,
	}
	// Options podOptions sets true: the gated ones, and the two Argo Rollouts
	// sets (pod-deletion-cost, hugepages).
	gated := map[string]bool{
		"AllowInvalidPodDeletionCost": true, "AllowIndivisibleHugePagesValues": true,
		"AllowRelaxedEnvironmentVariableValidation": true, "AllowRelaxedDNSSearchValidation": true,
		"AllowPodLifecycleSleepActionZeroValue": true, "AllowSidecarResizePolicy": true,
		"AllowMatchLabelKeysInPodTopologySpread": true, "AllowMatchLabelKeysInPodTopologySpreadSelectorMerge": true,
		"AllowEnvFilesValidation": true, "AllowContainerRestartPolicyRules": true, "AllowRestartAllContainers": true,
		"AllowTaintTolerationComparisonOperators": true, "AllowUserNamespacesHostNetworkSupport": true,
		"AllowImageVolumeWithDigest": true, "InPlacePodLevelResourcesVerticalScalingEnabled": true,
	}
	ours, theirs := reflect.ValueOf(podOptions), reflect.ValueOf(server)
	for i := range ours.NumField() {
		name := ours.Type().Field(i).Name
		o, s := ours.Field(i).Bool(), theirs.Field(i).Bool()
		switch {
		case narrowing[name]:
			if o {
				t.Errorf("%s = true: it refuses what some clusters accept", name)
			}
		case updateOnly[name]:
			if o != s {
				t.Errorf("%s = %v, an API server's create sets %v", name, o, s)
			}
		case gated[name]:
			if !o {
				t.Errorf("%s = false: it refuses what some clusters accept", name)
			}
		default:
			t.Errorf("option %s (API server's create: %v) is new: decide its value in podOptions and list it here", name, s)
		}
	}
}
