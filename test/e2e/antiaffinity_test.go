//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestAntiAffinity: antiAffinity keeps the new version's pods off the nodes
// of the previous version, through the real scheduler. The local control
// plane has one node, which runs the stable pods: with
// requiredDuringScheduling the canary's pod stays Pending, unschedulable
// for anti-affinity, while stable keeps serving; with
// preferredDuringScheduling the scheduler may still use that node, and the
// update completes. The injected rule does not change the pod-template hash.
func TestAntiAffinity(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, rule string
		schedules  bool
	}{
		{name: "required", rule: "requiredDuringSchedulingIgnoredDuringExecution: {}"},
		{name: "preferred", rule: "preferredDuringSchedulingIgnoredDuringExecution: {weight: 40}", schedules: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ns, name := namespace(t, "anti-"+tc.name), "web"
			apply(t, ns, rolloutYAML{name: name, replicas: 2, canary: "antiAffinity: {" + tc.rule + "}\nsteps: [{setWeight: 50}, {pause: {}}]"}.String())
			v1 := waitHealthy(t, ns, name, "", 2).Status.StableRS
			var first appsv1.ReplicaSet
			if err := env.client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name + "-" + v1}, &first); err != nil {
				t.Fatal(err)
			}
			if first.Spec.Template.Spec.Affinity != nil {
				t.Errorf("first deploy: nothing to avoid, yet affinity %+v", first.Spec.Template.Spec.Affinity)
			}

			setImage(t, ns, name, "app", "registry.example/app:v2")
			var v2 string
			eventually(t, 30*time.Second, "the update's ReplicaSet avoids "+v1, func() error {
				rss, err := replicaSets(ns, name)
				if err != nil {
					return err
				}
				for h, rs := range rss {
					if h == v1 {
						continue
					}
					v2 = h
					pa := rs.Spec.Template.Spec.Affinity
					if pa == nil || pa.PodAntiAffinity == nil {
						return fmt.Errorf("ReplicaSet %s has no pod anti-affinity", rs.Name)
					}
					if !strings.Contains(pa.PodAntiAffinity.String(), v1) || !strings.Contains(pa.PodAntiAffinity.String(), "kubernetes.io/hostname") {
						return fmt.Errorf("anti-affinity %s does not name %s by hostname", pa.PodAntiAffinity, v1)
					}
					return nil
				}
				return fmt.Errorf("no new ReplicaSet")
			})
			if tc.schedules {
				waitRollout(t, ns, name, 60*time.Second, "paused at step 1", pausedAt(1))
				patchStatus(t, ns, name, `{"status":{"pauseConditions":null}}`)
				waitHealthy(t, ns, name, v2, 2)
				return
			}
			eventually(t, 60*time.Second, "the canary pod is unschedulable for anti-affinity", func() error {
				var pods corev1.PodList
				if err := env.client.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabels{hashLabel: v2}); err != nil {
					return err
				}
				if len(pods.Items) == 0 {
					return fmt.Errorf("no canary pod yet")
				}
				for _, p := range pods.Items {
					for _, c := range p.Status.Conditions {
						if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable &&
							strings.Contains(c.Message, "anti-affinity") {
							return nil
						}
					}
				}
				p := pods.Items[0]
				return fmt.Errorf("pod %s: phase %s, node %q, conditions %v", p.Name, p.Status.Phase, p.Spec.NodeName, p.Status.Conditions)
			})
			// The new revision's status may be held up to 2 s while its pod is
			// Pending (docs/conformance.md): wait for it, then stable must
			// still serve.
			waitRollout(t, ns, name, 30*time.Second, "recording "+v2+" with "+v1+" serving", func(ro *rampv1.Rollout) error {
				if ro.Status.CurrentPodHash != v2 || ro.Status.StableRS != v1 || ro.Status.AvailableReplicas < 2 {
					return fmt.Errorf("currentPodHash %s stableRS %s available %d: want %s, %s still serving 2", ro.Status.CurrentPodHash,
						ro.Status.StableRS, ro.Status.AvailableReplicas, v2, v1)
				}
				return nil
			})
		})
	}
}
