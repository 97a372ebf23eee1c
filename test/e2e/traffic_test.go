//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestTrafficRouting runs the same canary through every router: steps
// 20 / pause / 50 / header route (routers that can) / 100. The route objects
// must hold exactly the step's weights and rules after every step, promote,
// abort and retry restore them, deleting the Rollout leaves 100% on stable,
// and no observed state sends traffic to a ReplicaSet without available pods.
func TestTrafficRouting(t *testing.T) {
	t.Parallel()
	for _, rc := range routerCases {
		t.Run(rc.name, func(t *testing.T) {
			t.Parallel()
			trafficScenario(t, rc)
		})
	}
}

func routedRollout(rc routerCase, name string, replicas int, extra string, steps ...string) string {
	return routedRolloutFor("", rc, name, replicas, extra, steps...)
}

// routedRolloutFor is routedRollout for the controller of instance id.
func routedRolloutFor(instance string, rc routerCase, name string, replicas int, extra string, steps ...string) string {
	routing := strings.ReplaceAll(rc.routing(name), "\n", "\n  ")
	body := fmt.Sprintf("canaryService: %[1]s-canary\nstableService: %[1]s-stable\nscaleDownDelaySeconds: 2\n"+
		"abortScaleDownDelaySeconds: 2\n%[2]strafficRouting:\n  %[3]s\n  managedRoutes: [{name: h}]\nsteps:\n- %[4]s",
		name, extra, routing, strings.Join(steps, "\n- "))
	objs := rc.objects(name)
	if objs != "" {
		objs = "---\n" + objs
	}
	return serviceYAML(name+"-stable", name) + "---\n" + serviceYAML(name+"-canary", name) + objs + "---\n" +
		rolloutYAML{name: name, replicas: replicas, instance: instance, canary: body}.String()
}

func waitRoute(t *testing.T, rc routerCase, ns, name string, want routeState) {
	t.Helper()
	eventually(t, 60*time.Second, fmt.Sprintf("%s route holds %s", rc.name, want), func() error {
		got, err := rc.read(liveGet(context.Background()), ns, name)
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("route holds %s", got)
		}
		return nil
	})
}

// verifiedWeight: status.canary.weights says w on the canary, read back.
func verifiedWeight(w int32, next func(*rampv1.Rollout) error) func(*rampv1.Rollout) error {
	return func(ro *rampv1.Rollout) error {
		if err := next(ro); err != nil {
			return err
		}
		ws := ro.Status.Canary.Weights
		if ws == nil || ws.Canary.Weight != w || ws.Stable.Weight != 100-w || ws.Verified == nil || !*ws.Verified {
			return fmt.Errorf("status.canary.weights %+v, want canary %d verified", ws, w)
		}
		return nil
	}
}

func trafficScenario(t *testing.T, rc routerCase) {
	ns, name := namespace(t, "tr-"+rc.name), "web"
	steps := []string{"setWeight: 20", "pause: {}", "setWeight: 50"}
	if rc.headers {
		steps = append(steps, "setHeaderRoute: {name: h, match: [{headerName: x-canary, headerValue: {exact: \"yes\"}}]}")
	}
	steps = append(steps, "setWeight: 100")
	apply(t, ns, routedRollout(rc, name, 5, "", steps...))
	v1 := waitRollout(t, ns, name, 90*time.Second, "Healthy, route read back", verifiedWeight(0, healthy(5, ""))).Status.StableRS
	waitRoute(t, rc, ns, name, routeState{0, 100, false})

	// Update: 20%, pause, promote, 50, header, 100, hand-over.
	guard := guardTraffic(t, rc, ns, name)
	setImage(t, ns, name, "app", "registry.example/app:v2")
	ro := waitRollout(t, ns, name, 60*time.Second, "paused at 20%", verifiedWeight(20, pausedAt(1)))
	v2 := ro.Status.CurrentPodHash
	waitRoute(t, rc, ns, name, routeState{20, 80, false})
	waitReplicaSets(t, ns, name, map[string]int32{v1: 5, v2: 1})
	patchStatus(t, ns, name, `{"status":{"pauseConditions":null}}`)
	waitRollout(t, ns, name, 90*time.Second, "Healthy on v2", verifiedWeight(0, healthy(5, v2)))
	waitRoute(t, rc, ns, name, routeState{0, 100, false})
	waitServiceHash(t, ns, name+"-stable", v2)
	waitReplicaSets(t, ns, name, map[string]int32{v1: 0, v2: 5})
	want := []routeState{{0, 100, false}, {20, 80, false}, {50, 50, false}}
	if rc.headers {
		want = append(want, routeState{50, 50, true}, routeState{100, 0, true})
	} else {
		want = append(want, routeState{100, 0, false})
	}
	want = append(want, routeState{0, 100, false})
	if got := guard.finish(t); !slices.Equal(got, want) {
		t.Errorf("route states observed %v, want exactly %v", got, want)
	}

	// Abort at 20%: everything back on stable at once, then the canary
	// ReplicaSet goes after abortScaleDownDelaySeconds; retry starts again.
	guard = guardTraffic(t, rc, ns, name)
	setImage(t, ns, name, "app", "registry.example/app:v3")
	v3 := waitRollout(t, ns, name, 60*time.Second, "paused at 20%", verifiedWeight(20, pausedAt(1))).Status.CurrentPodHash
	patchStatus(t, ns, name, `{"status":{"abort":true}}`)
	waitRoute(t, rc, ns, name, routeState{0, 100, false})
	waitRollout(t, ns, name, 30*time.Second, "aborted, route read back", verifiedWeight(0, func(ro *rampv1.Rollout) error {
		if ro.Status.Phase != rampv1.RolloutPhaseDegraded || !ro.Status.Abort {
			return fmt.Errorf("phase %q abort %v", ro.Status.Phase, ro.Status.Abort)
		}
		return nil
	}))
	waitServiceHash(t, ns, name+"-canary", v2)
	waitReplicaSets(t, ns, name, map[string]int32{v2: 5, v3: 0})
	patchStatus(t, ns, name, `{"status":{"abort":false}}`)
	waitRollout(t, ns, name, 60*time.Second, "retried, paused at 20%", verifiedWeight(20, pausedAt(1)))
	waitRoute(t, rc, ns, name, routeState{20, 80, false})
	for _, v := range guard.finish(t) {
		if v.canary != 0 && v.canary != 20 {
			t.Errorf("abort/retry route state %s: want only 0 or 20 on the canary", v)
		}
	}

	// Delete mid-canary: the finalizer puts every route back on stable.
	if _, stderr, err := kubectl(t, "", "delete", "rollout", name, "-n", ns, "--wait=false"); err != nil {
		t.Fatalf("delete rollout: %v\n%s", err, stderr)
	}
	eventually(t, 60*time.Second, "Rollout gone", func() error {
		_, err := getRollout(ns, name)
		if err == nil {
			return errors.New("still there")
		}
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there: %w", err)
		}
		return nil
	})
	waitRoute(t, rc, ns, name, routeState{0, 100, false})
}
