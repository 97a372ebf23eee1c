//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
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

// TestPrinterColumns: `kubectl get ro` shows upstream's Rollout printer
// columns, and the short names are upstream's (no category, as upstream).
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
	want := []string{"NAME", "DESIRED", "CURRENT", "UP-TO-DATE", "AVAILABLE", "AGE"}
	if strings.Join(header, " ") != strings.Join(want, " ") {
		t.Errorf("columns = %v, want %v", header, want)
	}
	if !strings.Contains(out, "web ") || !strings.Contains(out, " 4 ") {
		t.Errorf("row for rollout web with 4 desired replicas missing:\n%s", out)
	}
	for _, short := range []string{"ro", "ar", "at", "exp", "rollouts.argoproj.io"} {
		if _, stderr, err := kubectl(t, "", "get", short, "-n", ns); err != nil {
			t.Errorf("kubectl get %s: %v\n%s", short, err, stderr)
		}
	}
	if _, stderr, err := kubectl(t, "", "get", "cat"); err != nil {
		t.Errorf("kubectl get cat: %v\n%s", err, stderr)
	}
}

// TestScaleSubresource: /scale reads spec.replicas, status.HPAReplicas and
// status.selector (written by the controller from the pods it runs), and
// writing it changes spec.replicas, which the controller then acts on: what
// an HPA does.
func TestScaleSubresource(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "scale")
	plain := strings.Replace(canaryRollout, `      canaryService: web-canary
      stableService: web-stable
`, "", 1)
	if _, stderr, err := kubectl(t, plain, "apply", "--server-side", "-n", ns, "-f", "-"); err != nil {
		t.Fatalf("apply: %v\n%s", err, stderr)
	}
	readScale := func() (autoscalingv1.Scale, error) {
		var scale autoscalingv1.Scale
		raw, stderr, err := kubectl(t, "", "get", "--raw", "/apis/argoproj.io/v1alpha1/namespaces/"+ns+"/rollouts/web/scale")
		if err != nil {
			return scale, fmt.Errorf("%w: %s", err, stderr)
		}
		return scale, json.Unmarshal([]byte(raw), &scale)
	}
	eventually(t, 60*time.Second, "scale reports 4 replicas and the selector", func() error {
		scale, err := readScale()
		if err != nil {
			return err
		}
		if scale.Kind != "Scale" || scale.Spec.Replicas != 4 || scale.Status.Replicas != 4 || scale.Status.Selector != "app=web" {
			return fmt.Errorf("scale = kind %q spec %d status %d selector %q", scale.Kind, scale.Spec.Replicas, scale.Status.Replicas, scale.Status.Selector)
		}
		return nil
	})
	if _, stderr, err := kubectl(t, "", "scale", "-n", ns, "rollout/web", "--replicas=7"); err != nil {
		t.Fatalf("kubectl scale: %v\n%s", err, stderr)
	}
	eventually(t, 60*time.Second, "scale reports 7 replicas after kubectl scale", func() error {
		scale, err := readScale()
		if err != nil {
			return err
		}
		if scale.Spec.Replicas != 7 || scale.Status.Replicas != 7 {
			return fmt.Errorf("spec %d status %d", scale.Spec.Replicas, scale.Status.Replicas)
		}
		return nil
	})
}
