package plan

import (
	"fmt"
	"math"

	"k8s.io/apimachinery/pkg/util/intstr"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// RS is what the replica math needs to know about one ReplicaSet.
type RS struct {
	Name      string
	Spec      int32 // .spec.replicas
	Replicas  int32 // .status.replicas: pods created, terminating ones not counted
	Available int32 // .status.availableReplicas (never above Spec for a settled RS; may lag)
}

// The maxSurge and maxUnavailable of a strategy that sets neither.
var (
	defaultMaxSurge       = intstr.FromString(rampv1.DefaultMaxSurge)
	defaultMaxUnavailable = intstr.FromString(rampv1.DefaultMaxUnavailable)
)

// Budget resolves maxSurge and maxUnavailable (int or percentage of replicas,
// nil = the default "25%") for n replicas: surge rounds UP, unavailable rounds
// DOWN (as Deployments do); if both resolve to 0, unavailable becomes 1.
// Unavailable is at most n (0 for 0 replicas), as in Argo Rollouts.
// A malformed or negative value is an error.
func Budget(n int32, maxSurge, maxUnavailable *intstr.IntOrString) (surge, unavailable int32, err error) {
	if surge, err = resolve("maxSurge", maxSurge, defaultMaxSurge, n, true); err != nil {
		return 0, 0, err
	}
	if unavailable, err = resolve("maxUnavailable", maxUnavailable, defaultMaxUnavailable, n, false); err != nil {
		return 0, 0, err
	}
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return surge, min(unavailable, max(n, 0)), nil
}

// resolve scales one budget field against n replicas.
func resolve(field string, v *intstr.IntOrString, def intstr.IntOrString, n int32, roundUp bool) (int32, error) {
	v = intstr.ValueOrDefault(v, def)
	got, err := intstr.GetScaledValueFromIntOrPercent(v, int(max(n, 0)), roundUp)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", field, err)
	}
	if got < 0 || got > math.MaxInt32 {
		return 0, fmt.Errorf("%s: %s resolves to %d, want 0..%d", field, v.String(), got, math.MaxInt32)
	}
	return int32(got), nil
}

// CanaryReplicas is ceil(weight x n / 100) for weight in 0..100: the canary
// pods of a traffic-routed step or a setCanaryScale weight, rounded up as in
// Argo Rollouts (a canary without trafficRouting splits by Split instead).
// weight 0 -> 0, weight 100 -> n. A weight outside 0..100 is clamped into it.
func CanaryReplicas(n, weight int32) int32 {
	n, weight = max(n, 0), min(max(weight, 0), 100)
	return int32((int64(n)*int64(weight) + 99) / 100)
}
