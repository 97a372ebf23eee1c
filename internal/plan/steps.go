package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/rand"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// StepsHash identifies a list of canary steps; status.currentStepHash holds it
// so that editing the steps restarts them. It is upstream's value (the
// FNV-32a sum of the steps' JSON, in decimal, encoded with apimachinery's
// SafeEncodeString), so that a controller taking over a Rollout from the
// other does not take its steps for edited (testdata/upstream-step-hashes.json).
func StepsHash(steps []rampv1.CanaryStep) string {
	b, _ := json.Marshal(steps) // decoded steps always encode (plain data)
	h := fnv.New32a()
	_, _ = h.Write(b) // a hash.Hash never fails to write
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}

// legacyStepsHash is the step hash Ramp recorded before it used upstream's
// (a prefix of the SHA-256 of the same JSON): a Rollout recorded so is not
// taken for edited steps after an upgrade.
func legacyStepsHash(steps []rampv1.CanaryStep) string {
	b, _ := json.Marshal(steps) // decoded steps always encode (plain data)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:10]
}

// PauseDuration parses pause.duration (rampv1.ParseSecondsOrDuration): an
// integer number of seconds or a Go duration string. nil means "pause until
// promoted". A string of digits beyond an int32 of seconds is an error
// (upstream reports it as invalid), as is a duration beyond
// rampv1.MaxDuration.
func PauseDuration(d *intstr.IntOrString) (*time.Duration, error) {
	if d == nil {
		return nil, nil
	}
	v, err := rampv1.ParseSecondsOrDuration(*d)
	if err != nil {
		return nil, fmt.Errorf("pause.duration %q: %w", d.String(), err)
	}
	return &v, nil
}

// weightAt is the canary weight in force at step index i: the last setWeight
// at or before i (0 if none), and 100 once every step is done.
func weightAt(steps []rampv1.CanaryStep, i int32) int32 {
	if int(i) >= len(steps) {
		return 100
	}
	for j := i; j >= 0; j-- {
		if w := steps[j].SetWeight; w != nil {
			return *w
		}
	}
	return 0
}

// canaryScaleAt returns the canary replica count forced by the last
// setCanaryScale at or before i, if any (matchTrafficWeight cancels it).
func canaryScaleAt(steps []rampv1.CanaryStep, i int32, n int32) (int32, bool) {
	if int(i) >= len(steps) {
		return 0, false
	}
	for j := i; j >= 0; j-- {
		s := steps[j].SetCanaryScale
		if s == nil {
			continue
		}
		switch {
		case s.MatchTrafficWeight:
			return 0, false
		case s.Replicas != nil:
			return *s.Replicas, true
		case s.Weight != nil:
			return CanaryReplicas(n, *s.Weight), true
		}
	}
	return 0, false
}
