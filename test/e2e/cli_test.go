//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// ramp runs the real CLI binary against the local control plane and returns
// its output and exit code.
func ramp(t *testing.T, ns string, args ...string) (string, int) {
	t.Helper()
	bin := os.Getenv("RAMP_CLI_BIN")
	if bin == "" {
		t.Fatal("RAMP_CLI_BIN is unset; run the suite with make test")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--kubeconfig", env.kubeconfig, "-n", ns}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &ee):
		return out.String(), ee.ExitCode()
	}
	t.Fatalf("ramp %v: %v", args, err)
	return "", -1
}

func mustRamp(t *testing.T, ns string, args ...string) string {
	t.Helper()
	out, code := ramp(t, ns, args...)
	if code != 0 {
		t.Fatalf("ramp %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// TestCLICanaryWalkthrough drives seed 003's canary only through ramp
// commands and checks the cluster after each.
func TestCLICanaryWalkthrough(t *testing.T) {
	t.Parallel()
	const name = "rollouts-demo"
	ns := namespace(t, "cli-canary")
	if _, stderr, err := kubectl(t, "", "apply", "--server-side", "-n", ns, "-f", "testdata/seeds/003-rollouts-demo.yaml"); err != nil {
		t.Fatalf("apply: %v\n%s", err, stderr)
	}
	// kubectl creates the Rollout before its Services: until they exist the
	// Rollout is (rightly) InvalidSpec, which `status` reports as Degraded.
	old := waitHealthy(t, ns, name, "", 5).Status.CurrentPodHash
	mustRamp(t, ns, "status", name, "--timeout", "90s")

	mustRamp(t, ns, "set", "image", name, "rollouts-demo=argoproj/rollouts-demo:yellow")
	mustRamp(t, ns, "status", name, "--paused-ok", "--timeout", "90s")
	ro := waitRollout(t, ns, name, 30*time.Second, "paused on step 1", pausedAt(1))
	waitReplicaSets(t, ns, name, map[string]int32{old: 4, ro.Status.CurrentPodHash: 1})

	if out, code := ramp(t, ns, "get", "rollout", name); code != 0 || !strings.Contains(out, name) || !strings.Contains(out, "Paused") ||
		!strings.Contains(out, ro.Status.CurrentPodHash) || !strings.Contains(out, old) {
		t.Errorf("ramp get rollout: exit %d\n%s", code, out)
	}
	if out, code := ramp(t, ns, "get", "rollout", name, "--watch", "--watch-timeout", "2s"); code != 0 || !strings.Contains(out, "Paused") {
		t.Errorf("ramp get rollout --watch: exit %d\n%s", code, out)
	}
	var rows []map[string]any
	if out, code := ramp(t, ns, "get", "rollouts", "-o", "json"); code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 1 {
		t.Errorf("ramp get rollouts -o json: exit %d\n%s", code, out)
	}
	mustRamp(t, ns, "promote", name)
	mustRamp(t, ns, "status", name, "--timeout", "120s")
	waitReplicaSets(t, ns, name, map[string]int32{old: 0, ro.Status.CurrentPodHash: 5})

	// Nothing to promote now: refused, nothing changed.
	out, code := ramp(t, ns, "promote", name)
	if code != 1 || !strings.Contains(out, "nothing to promote") {
		t.Errorf("promote on a healthy rollout: exit %d\n%s", code, out)
	}
}

// TestCLIBlueGreenWalkthrough drives seed 003's blue-green through ramp.
func TestCLIBlueGreenWalkthrough(t *testing.T) {
	t.Parallel()
	const name = "rollouts-blue-green"
	ns := namespace(t, "cli-bg")
	if _, stderr, err := kubectl(t, "", "apply", "--server-side", "-n", ns, "-f", "testdata/seeds/003-bluegreen.yaml"); err != nil {
		t.Fatalf("apply: %v\n%s", err, stderr)
	}
	// kubectl creates the Rollout before its Services: until they exist the
	// Rollout is (rightly) InvalidSpec, which `status` reports as Degraded.
	old := waitHealthy(t, ns, name, "", 5).Status.CurrentPodHash
	mustRamp(t, ns, "status", name, "--timeout", "90s")
	mustRamp(t, ns, "set", "image", name, "*=argoproj/rollouts-demo:yellow")
	mustRamp(t, ns, "status", name, "--paused-ok", "--timeout", "90s")
	fresh := waitRollout(t, ns, name, 30*time.Second, "paused for promotion", pausedBlueGreen).Status.CurrentPodHash
	waitServiceHash(t, ns, "rollouts-blue-svc", fresh)
	waitServiceHash(t, ns, "rollouts-green-svc", old)
	mustRamp(t, ns, "promote", name)
	mustRamp(t, ns, "status", name, "--timeout", "120s")
	waitServiceHash(t, ns, "rollouts-green-svc", fresh)
}

// TestCLIStatusExitCodes: Healthy 0, Degraded 1, timeout 2; unknown 1.
func TestCLIStatusExitCodes(t *testing.T) {
	t.Parallel()
	const name = "codes"
	ns := namespace(t, "cli-status")
	apply(t, ns, rolloutYAML{name: name, replicas: 2, canary: "steps:\n- setWeight: 50\n- pause: {}\n"}.String())
	if out, code := ramp(t, ns, "status", name, "--timeout", "90s"); code != 0 {
		t.Fatalf("Healthy: exit %d\n%s", code, out)
	}
	mustRamp(t, ns, "set", "image", name, "app=registry.example/app:v2")
	waitRollout(t, ns, name, 60*time.Second, "paused", pausedAt(1))
	if out, code := ramp(t, ns, "status", name, "--timeout", "2s"); code != 2 || !strings.Contains(out, "timed out") {
		t.Errorf("paused without --paused-ok: exit %d, want 2\n%s", code, out)
	}
	mustRamp(t, ns, "abort", name)
	if out, code := ramp(t, ns, "status", name, "--timeout", "60s"); code != 1 || !strings.Contains(out, "Degraded") {
		t.Errorf("aborted: exit %d, want 1\n%s", code, out)
	}
	if out, code := ramp(t, ns, "status", "nope", "--timeout", "5s"); code != 1 || !strings.Contains(out, `rollout "`+ns+`/nope" not found`) {
		t.Errorf("unknown rollout: exit %d\n%s", code, out)
	}
	mustRamp(t, ns, "retry", name)
	waitRollout(t, ns, name, 60*time.Second, "paused again after retry", pausedAt(1))
	mustRamp(t, ns, "promote", "--full", name)
	if out, code := ramp(t, ns, "status", name, "--timeout", "90s"); code != 0 {
		t.Errorf("after promote --full: exit %d\n%s", code, out)
	}
}

// TestCLIUndoPauseRestart: undo back to the stable revision finishes at
// once; pause holds the rollout until promote; restart replaces every pod.
func TestCLIUndoPauseRestart(t *testing.T) {
	t.Parallel()
	const name = "undo"
	ns := namespace(t, "cli-undo")
	apply(t, ns, rolloutYAML{name: name, replicas: 2, canary: "steps:\n- setWeight: 50\n- pause: {}\n"}.String())
	stable := waitHealthy(t, ns, name, "", 2).Status.CurrentPodHash
	mustRamp(t, ns, "set", "image", name, "app=registry.example/app:v2")
	waitRollout(t, ns, name, 60*time.Second, "paused", pausedAt(1))
	mustRamp(t, ns, "undo", name)
	waitHealthy(t, ns, name, stable, 2)

	mustRamp(t, ns, "pause", name)
	waitRollout(t, ns, name, 30*time.Second, "manually paused", func(ro *rampv1.Rollout) error {
		if ro.Status.Phase != rampv1.RolloutPhasePaused || !ro.Spec.Paused {
			return fmt.Errorf("phase %q paused %v", ro.Status.Phase, ro.Spec.Paused)
		}
		return nil
	})
	mustRamp(t, ns, "promote", name)
	waitHealthy(t, ns, name, stable, 2)

	mustRamp(t, ns, "restart", name)
	waitRollout(t, ns, name, 90*time.Second, "restarted", func(ro *rampv1.Rollout) error {
		if ro.Status.RestartedAt == nil || ro.Spec.RestartAt == nil || ro.Status.RestartedAt.Before(ro.Spec.RestartAt) {
			return fmt.Errorf("restartAt %v restartedAt %v", ro.Spec.RestartAt, ro.Status.RestartedAt)
		}
		return nil
	})
}
