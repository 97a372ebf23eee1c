//go:build e2e

package e2e

import (
	"fmt"
	"slices"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestTrafficDynamicStableScale: with dynamicStableScale the stable
// ReplicaSet shrinks as the canary's weight grows, the ReplicaSets never ask
// for (or hold) more than replicas+1 pods, every weight is carried by enough
// available pods on both sides, and an abort scales stable back up before
// the weight moves back to it.
func TestTrafficDynamicStableScale(t *testing.T) {
	t.Parallel()
	rc := routerCases[0] // Gateway API
	ns, name, n := namespace(t, "tr-dynamic"), "web", int32(5)
	apply(t, ns, routedRollout(rc, name, int(n), "dynamicStableScale: true\n", "setWeight: 20", "setWeight: 50", "pause: {}"))
	v1 := waitRollout(t, ns, name, 90*time.Second, "Healthy", verifiedWeight(0, healthy(n, ""))).Status.StableRS

	podsFor := func(w int64) int32 { return int32((int64(n)*w + 99) / 100) }
	guard := guardTraffic(t, rc, ns, name)
	guard.extra = func(route routeState, selects map[string]string, avail map[string]int32, specSum, podSum int32) string {
		switch {
		case specSum > n+1:
			return fmt.Sprintf("ReplicaSets ask for %d pods, more than replicas+1 = %d", specSum, n+1)
		case podSum > n+1:
			return fmt.Sprintf("ReplicaSets hold %d pods, more than replicas+1 = %d", podSum, n+1)
		case avail[selects[name+"-canary"]] < podsFor(route.canary):
			return fmt.Sprintf("route %s: canary has %d available pods for weight %d", route, avail[selects[name+"-canary"]], route.canary)
		case avail[selects[name+"-stable"]] < podsFor(route.stable):
			return fmt.Sprintf("route %s: stable has %d available pods for weight %d", route, avail[selects[name+"-stable"]], route.stable)
		}
		return ""
	}
	setImage(t, ns, name, "app", "registry.example/app:v2")
	v2 := waitRollout(t, ns, name, 60*time.Second, "paused at 50%", verifiedWeight(50, pausedAt(2))).Status.CurrentPodHash
	waitRoute(t, rc, ns, name, routeState{50, 50, false})
	waitReplicaSets(t, ns, name, map[string]int32{v1: 3, v2: 3}) // 50% of 5 is 2.5 pods: both round up, replicas+1

	patchStatus(t, ns, name, `{"status":{"abort":true}}`)
	waitRollout(t, ns, name, 60*time.Second, "aborted, route read back", verifiedWeight(0, func(ro *rampv1.Rollout) error {
		if !ro.Status.Abort {
			return fmt.Errorf("not aborted")
		}
		return nil
	}))
	waitRoute(t, rc, ns, name, routeState{0, 100, false})
	waitReplicaSets(t, ns, name, map[string]int32{v1: 5, v2: 0})
	// Up: the weight follows the canary pods within replicas+1 (40 while
	// only two canary pods are available). Down: each stable pod comes back
	// before the weight does.
	states := guard.finish(t, routeState{0, 100, false})
	want := []routeState{{0, 100, false}, {20, 80, false}, {40, 60, false}, {50, 50, false}, {40, 60, false}, {20, 80, false}, {0, 100, false}}
	if !slices.Equal(states, want) {
		t.Errorf("route states %v, want %v", states, want)
	}
	t.Logf("route states: %v", states)
}
