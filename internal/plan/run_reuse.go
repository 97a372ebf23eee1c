package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// RunSpecHash is the hash of an AnalysisRun spec that Ramp stores on the
// runs it creates (rampv1.RunSpecHashAnnotation): SHA-256 of the spec's
// JSON with spec.terminate cleared, in hex. A cryptographic hash, so a
// different spec with the same hash cannot be made.
func RunSpecHash(spec rampv1.AnalysisRunSpec) string {
	spec.Terminate = false
	// An AnalysisRunSpec holds only plain data (strings, numbers, maps,
	// slices, quantities, raw JSON the API server accepted), which encodes.
	b, err := json.Marshal(spec)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// RunReuse says why run cannot be taken up as the run its owner (the
// Rollout or Experiment with UID owner) would create with spec hash want,
// or "" when it can. It can when owner is its controller (by UID), it
// carries want as its spec-hash annotation, and its spec as stored hashes
// to want: the annotation alone could be copied by whoever made the run.
// A run made before Ramp stored the annotation, or whose spec the API
// server defaulted, is not taken up: a new one starts instead, which is
// safe.
func RunReuse(run *rampv1.AnalysisRun, owner types.UID, want string) string {
	ref := metav1.GetControllerOf(run)
	switch {
	case ref == nil:
		return "it has no controller"
	case ref.UID != owner:
		return fmt.Sprintf("its controller is %s %s (uid %s), not this one", ref.Kind, ref.Name, ref.UID)
	case want == "":
		return "the spec it should have could not be hashed"
	case run.Annotations[rampv1.RunSpecHashAnnotation] == "":
		return fmt.Sprintf("it has no %s annotation (not created by this version of Ramp)", rampv1.RunSpecHashAnnotation)
	case run.Annotations[rampv1.RunSpecHashAnnotation] != want:
		return "it was created for another spec (its templates or arguments have changed since)"
	case RunSpecHash(run.Spec) != want:
		return fmt.Sprintf("its spec differs from the one its %s annotation records (changed after creation)", rampv1.RunSpecHashAnnotation)
	}
	return ""
}

// NotReusedMessage is the Warning Event (rampv1.RunNotReusedReason) on a
// Rollout or Experiment about a run RunReuse refused.
func NotReusedMessage(run, why string) string {
	return fmt.Sprintf("AnalysisRun %s is not reused: %s; a new run is started and its verdict is not used", run, why)
}
