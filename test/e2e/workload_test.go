//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// TestWorkloadRef: a Rollout with workloadRef takes its pod template from a
// Deployment (migrating to Ramp without copying the template): it runs the
// Deployment's pods, scales the Deployment to 0 once Healthy
// (scaleDown: onsuccess), and a change of the Deployment's template is an
// update that goes through the canary steps. A missing Deployment is
// InvalidSpec naming it.
func TestWorkloadRef(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "workload")
	apply(t, ns, `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: "registry.example/app:v1"}]}
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  workloadRef: {apiVersion: apps/v1, kind: Deployment, name: web, scaleDown: onsuccess}
  strategy: {canary: {steps: [{setWeight: 50}, {pause: {}}]}}
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: orphan}
spec:
  replicas: 1
  selector: {matchLabels: {app: orphan}}
  workloadRef: {apiVersion: apps/v1, kind: Deployment, name: nope}
  strategy: {canary: {}}
`)
	v1 := waitHealthy(t, ns, "web", "", 2).Status.StableRS
	image := func(hash string) string {
		var rs appsv1.ReplicaSet
		if err := env.client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "web-" + hash}, &rs); err != nil {
			t.Fatal(err)
		}
		return rs.Spec.Template.Spec.Containers[0].Image
	}
	if got := image(v1); got != "registry.example/app:v1" {
		t.Errorf("the Rollout's ReplicaSet runs %s, want the Deployment's registry.example/app:v1", got)
	}
	var d appsv1.Deployment
	eventually(t, 60*time.Second, "the Deployment scaled to 0 (onsuccess)", func() error {
		if err := env.client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "web"}, &d); err != nil {
			return err
		}
		if *d.Spec.Replicas != 0 {
			return fmt.Errorf("Deployment at %d", *d.Spec.Replicas)
		}
		return nil
	})
	waitRollout(t, ns, "web", 30*time.Second, "workloadObservedGeneration", func(ro *rampv1.Rollout) error {
		if ro.Status.WorkloadObservedGeneration != strconv.FormatInt(d.Generation, 10) {
			return fmt.Errorf("workloadObservedGeneration %q, Deployment generation %d", ro.Status.WorkloadObservedGeneration, d.Generation)
		}
		return nil
	})

	if _, stderr, err := kubectl(t, "", "-n", ns, "set", "image", "deployment/web", "app=registry.example/app:v2"); err != nil {
		t.Fatalf("set image: %v: %s", err, stderr)
	}
	v2 := waitRollout(t, ns, "web", 60*time.Second, "paused at step 1 on the Deployment's new template", pausedAt(1)).Status.CurrentPodHash
	if v2 == v1 || image(v2) != "registry.example/app:v2" {
		t.Errorf("update %s runs %s, want a new ReplicaSet of registry.example/app:v2", v2, image(v2))
	}
	patchStatus(t, ns, "web", `{"status":{"pauseConditions":null}}`)
	waitHealthy(t, ns, "web", v2, 2)

	waitRollout(t, ns, "orphan", 30*time.Second, "InvalidSpec naming the Deployment", func(ro *rampv1.Rollout) error {
		if c := condition(ro, rampv1.RolloutInvalidSpec); c == nil || !strings.Contains(c.Message, `spec.workloadRef: Deployment "nope" not found`) {
			return fmt.Errorf("InvalidSpec %+v", c)
		}
		return nil
	})
}
