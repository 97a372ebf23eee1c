//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

const canaryRollout = `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: web
spec:
  replicas: 4
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
  strategy:
    canary:
      canaryService: web-canary
      stableService: web-stable
      steps:
      - setWeight: 25
      - pause: {duration: 30s}
      - setWeight: 50
      - pause: {}
`

// TestPrinterColumns: `kubectl get ro` shows the Rollout printer columns.
func TestPrinterColumns(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "columns")
	if _, stderr, err := kubectl(t, canaryRollout, "apply", "--server-side", "-n", ns, "-f", "-"); err != nil {
		t.Fatalf("apply: %v\n%s", err, stderr)
	}
	out, stderr, err := kubectl(t, "", "get", "ro", "-n", ns)
	if err != nil {
		t.Fatalf("get ro: %v\n%s", err, stderr)
	}
	header := strings.Fields(strings.SplitN(out, "\n", 2)[0])
	want := []string{"NAME", "DESIRED", "CURRENT", "UP-TO-DATE", "AVAILABLE", "PHASE", "STEP", "WEIGHT", "AGE"}
	if strings.Join(header, " ") != strings.Join(want, " ") {
		t.Errorf("columns = %v, want %v", header, want)
	}
	if !strings.Contains(out, "web ") || !strings.Contains(out, " 4 ") {
		t.Errorf("row for rollout web with 4 desired replicas missing:\n%s", out)
	}
	for _, short := range []string{"ro", "ar", "at", "exp", "rollouts.argoproj.io", "argoproj"} {
		if _, stderr, err := kubectl(t, "", "get", short, "-n", ns); err != nil {
			t.Errorf("kubectl get %s: %v\n%s", short, err, stderr)
		}
	}
	if _, stderr, err := kubectl(t, "", "get", "cat"); err != nil {
		t.Errorf("kubectl get cat: %v\n%s", err, stderr)
	}
}

// TestScaleSubresource: /scale reads spec.replicas, status.HPAReplicas and
// status.selector, and writing it changes spec.replicas (what the HPA does).
func TestScaleSubresource(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "scale")
	if _, stderr, err := kubectl(t, canaryRollout, "apply", "--server-side", "-n", ns, "-f", "-"); err != nil {
		t.Fatalf("apply: %v\n%s", err, stderr)
	}
	ctx := context.Background()
	ro := &rampv1.Rollout{}
	if err := env.client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, ro); err != nil {
		t.Fatal(err)
	}
	// Stand in for the controller's status write (the canary issue writes it).
	patch := []byte(`{"status":{"HPAReplicas":3,"selector":"app=web,rollouts-pod-template-hash=abc"}}`)
	if err := env.client.Status().Patch(ctx, ro, client.RawPatch(types.MergePatchType, patch)); err != nil {
		t.Fatalf("status patch: %v", err)
	}
	raw, stderr, err := kubectl(t, "", "get", "--raw", "/apis/argoproj.io/v1alpha1/namespaces/"+ns+"/rollouts/web/scale")
	if err != nil {
		t.Fatalf("get scale: %v\n%s", err, stderr)
	}
	var scale autoscalingv1.Scale
	if err := json.Unmarshal([]byte(raw), &scale); err != nil {
		t.Fatalf("decode scale %q: %v", raw, err)
	}
	if scale.Kind != "Scale" || scale.Spec.Replicas != 4 || scale.Status.Replicas != 3 ||
		scale.Status.Selector != "app=web,rollouts-pod-template-hash=abc" {
		t.Errorf("scale = kind %q spec %d status %d selector %q; want Scale 4 3 app=web,rollouts-pod-template-hash=abc",
			scale.Kind, scale.Spec.Replicas, scale.Status.Replicas, scale.Status.Selector)
	}
	if _, stderr, err := kubectl(t, "", "scale", "-n", ns, "rollout/web", "--replicas=7"); err != nil {
		t.Fatalf("kubectl scale: %v\n%s", err, stderr)
	}
	if err := env.client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, ro); err != nil {
		t.Fatal(err)
	}
	if ro.Spec.Replicas == nil || *ro.Spec.Replicas != 7 {
		t.Errorf("spec.replicas after scale = %v, want 7", ro.Spec.Replicas)
	}
}
