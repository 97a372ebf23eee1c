//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// invalidSpec: the Rollout is Degraded with InvalidSpec naming want.
func invalidSpec(want string) func(*rampv1.Rollout) error {
	return func(ro *rampv1.Rollout) error {
		c := condition(ro, rampv1.RolloutInvalidSpec)
		switch {
		case observed(ro) != nil:
			return observed(ro)
		case c == nil || c.Status != "True":
			return fmt.Errorf("no InvalidSpec condition (phase %q, message %q)", ro.Status.Phase, ro.Status.Message)
		case !strings.Contains(c.Message, want):
			return fmt.Errorf("InvalidSpec message %q does not contain %q", c.Message, want)
		case ro.Status.Phase != rampv1.RolloutPhaseDegraded:
			return fmt.Errorf("phase %q, want Degraded", ro.Status.Phase)
		}
		return nil
	}
}

// TestTrafficInvalidSpec: a missing route object and a step the router
// cannot express are InvalidSpec naming the object or field, nothing is
// created meanwhile, and creating the route object recovers the Rollout.
func TestTrafficInvalidSpec(t *testing.T) {
	t.Parallel()
	t.Run("missing HTTPRoute", func(t *testing.T) {
		t.Parallel()
		rc := routerCases[0]
		ns, name := namespace(t, "tr-missing"), "web"
		manifest := routedRollout(rc, name, 2, "", "setWeight: 50")
		route := rc.objects(name)
		apply(t, ns, strings.Replace(manifest, "---\n"+route, "", 1))
		waitRollout(t, ns, name, 30*time.Second, "InvalidSpec", invalidSpec(fmt.Sprintf("HTTPRoute %s/%s not found", ns, name)))
		if rss, err := replicaSets(ns, name); err != nil || len(rss) != 0 {
			t.Fatalf("ReplicaSets while InvalidSpec: %v (%v)", rss, err)
		}
		apply(t, ns, route)
		waitRollout(t, ns, name, 60*time.Second, "Healthy once the HTTPRoute exists", verifiedWeight(0, healthy(2, "")))
	})
	t.Run("mirror route on ALB", func(t *testing.T) {
		t.Parallel()
		rc := routerCases[3]
		ns, name := namespace(t, "tr-alb-mirror"), "web"
		apply(t, ns, routedRollout(rc, name, 2, "", "setWeight: 50",
			`setMirrorRoute: {name: h, percentage: 50, match: [{method: {exact: GET}}]}`))
		waitRollout(t, ns, name, 30*time.Second, "InvalidSpec",
			invalidSpec("spec.strategy.canary.steps[1].setMirrorRoute: the alb traffic router cannot express mirror routes"))
	})
}
