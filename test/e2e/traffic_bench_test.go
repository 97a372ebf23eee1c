//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// BenchmarkTrafficRouting: a 5-replica canary routed through a Gateway API
// HTTPRoute, setWeight 20, 40, 60, 80 without pauses and no scale-down delay,
// from the image-change patch to Healthy on the new hash (every weight read
// back before the next step), with the controller's API requests: PUT is
// the HTTPRoute writes (one per weight change and the hand-over).
func BenchmarkTrafficRouting(b *testing.B) {
	ns := namespace(b, "bench-tr")
	p := ownController(b, ns, ns)
	const name = "web"
	rc := routerCases[0]
	apply(b, ns, routedRolloutFor(ns, rc, name, 5, "", "setWeight: 20", "setWeight: 40", "setWeight: 60", "setWeight: 80"))
	patch(b, ns, name, "merge", `{"spec":{"strategy":{"canary":{"scaleDownDelaySeconds":0}}}}`)
	ro := waitRollout(b, ns, name, 90*time.Second, "Healthy", verifiedWeight(0, healthy(5, "")))
	var total time.Duration
	var writes, reads float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		before := restRequests(b, p)
		old := ro.Status.CurrentPodHash
		b.StartTimer()
		start := time.Now()
		setImageDirect(b, ns, name, fmt.Sprintf("registry.example/app:v%d", i+2))
		ro = watchRollout(b, ns, name, 3*time.Minute, func(ro *rampv1.Rollout) bool {
			return newTemplate(old)(ro) == nil && verifiedWeight(0, healthy(5, ""))(ro) == nil
		})
		took := time.Since(start)
		b.StopTimer()
		after := restRequests(b, p)
		w, r := requestDelta(before, after)
		checkHandedOver(b, rc, ns, name, i+1, after["PUT"]-before["PUT"])
		total, writes, reads = total+took, writes+w, reads+r
		b.Logf("update %d: Healthy on %s, route read back, after %s; controller API requests: %.0f writes (%s), %.0f reads",
			i+1, ro.Status.CurrentPodHash, took.Round(time.Millisecond), w, methodDelta(before, after), r)
	}
	n := float64(b.N)
	b.ReportMetric(total.Seconds()/n, "s-to-healthy/op")
	b.ReportMetric(writes/n, "api-writes/op")
	b.ReportMetric(reads/n, "api-reads/op")
}

// checkHandedOver: the update wrote the HTTPRoute at least once per weight
// change and the hand-over, and the route now sends everything to stable.
func checkHandedOver(t testing.TB, rc routerCase, ns, name string, update int, puts float64) {
	t.Helper()
	if puts < 5 {
		t.Fatalf("update %d: %.0f HTTPRoute writes, want at least 5 (20, 40, 60, 80 and the hand-over)", update, puts)
	}
	if got, err := rc.read(liveGet(context.Background()), ns, name); err != nil || got != (routeState{0, 100, false}) {
		t.Fatalf("update %d: route after the hand-over %s (%v), want 0/100", update, got, err)
	}
}
