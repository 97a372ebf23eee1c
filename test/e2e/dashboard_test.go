//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/action"
)

// startDashboard runs `ramp dashboard` (the real binary) on a free loopback
// port and returns its base URL; it is stopped when the test ends.
func startDashboard(t testing.TB, args ...string) string {
	t.Helper()
	url, _ := startDashboardProcess(t, nil, env.kubeconfig, args...)
	return url
}

// startDashboardAs is startDashboard with the identity of kubeconfig.
func startDashboardAs(t *testing.T, kubeconfig string, args ...string) string {
	t.Helper()
	url, _ := startDashboardProcess(t, nil, kubeconfig, args...)
	return url
}

// startDashboardProcess is startDashboardAs that also returns the process
// (for its /proc figures); setup, if set, may change the command (its
// environment, its standard error) before it starts.
func startDashboardProcess(t testing.TB, setup func(*exec.Cmd), kubeconfig string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	url, cmd, stop, err := launchDashboard(setup, kubeconfig, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return url, cmd
}

// launchDashboard starts `ramp dashboard` with kubeconfig and returns its
// base URL once it serves, the process, and the func that stops it.
func launchDashboard(setup func(*exec.Cmd), kubeconfig string, args ...string) (string, *exec.Cmd, func(), error) {
	bin := os.Getenv("RAMP_CLI_BIN")
	if bin == "" {
		return "", nil, nil, errors.New("RAMP_CLI_BIN must be set (make test and make bench set it)")
	}
	cmd := exec.Command(bin, append([]string{"--kubeconfig", kubeconfig, "dashboard", "--address", "127.0.0.1:0"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, nil, err
	}
	var stderr bytes.Buffer // read only after the process exited
	cmd.Stderr = &stderr
	if setup != nil {
		setup(cmd)
	}
	if err := cmd.Start(); err != nil {
		return "", nil, nil, err
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		line <- l
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case l := <-line:
		_, url, ok := strings.Cut(strings.TrimSpace(l), " on ")
		url, _, _ = strings.Cut(url, " ")
		if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
			stop()
			return "", nil, nil, fmt.Errorf("ramp dashboard printed %q; stderr:\n%s", l, stderr.Bytes()[max(0, stderr.Len()-2000):])
		}
		return url, cmd, stop, nil
	case <-time.After(time.Minute):
		stop()
		return "", nil, nil, errors.New("ramp dashboard did not start within a minute")
	}
}

// TestDashboardAPI: on the real API server, the dashboard lists and shows
// seed 003's rollout, refuses an action on a stale version (409), promotes
// with the CLI's patch, and pushes the change as a Server-Sent Event.
// A JSON patch made conditional by action.WithResourceVersion is refused
// by the API server itself with 409 once the rollout has changed.
func TestDashboardAPI(t *testing.T) {
	t.Parallel()
	const name = "rollouts-demo"
	ns := namespace(t, "dashboard")
	if _, stderr, err := kubectl(t, "", "apply", "--server-side", "-n", ns, "-f", "testdata/seeds/003-rollouts-demo.yaml"); err != nil {
		t.Fatalf("apply: %v\n%s", err, stderr)
	}
	waitHealthy(t, ns, name, "", 5)
	mustRamp(t, ns, "set", "image", name, "rollouts-demo=argoproj/rollouts-demo:yellow")
	paused := waitRollout(t, ns, name, time.Minute, "paused on step 1", pausedAt(1))

	base := startDashboard(t, "--enable-actions")
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	get := func(path string, v any) int {
		resp, err := hc.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		return resp.StatusCode
	}

	// The event stream, read in the background.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/events", nil)
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stream.Body.Close() }()
	events := make(chan string, 100)
	go func() {
		r := bufio.NewReader(stream.Body)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if d, ok := strings.CutPrefix(l, "data: "); ok {
				events <- d
			}
		}
	}()

	var session struct{ CSRFToken string }
	if code := get("/api/session", &session); code != 200 || session.CSRFToken == "" {
		t.Fatalf("session: %d %+v", code, session)
	}
	var list struct {
		Items []struct{ Namespace, Name, Step string }
	}
	if code := get("/api/rollouts", &list); code != 200 || !strings.Contains(fmt.Sprint(list.Items), ns+" "+name+" 1/8") {
		t.Errorf("list: %d %+v", code, list.Items)
	}
	var detail struct {
		ResourceVersion string
		Rollout         struct{ Revisions []any }
	}
	if code := get("/api/rollouts/"+ns+"/"+name, &detail); code != 200 || len(detail.Rollout.Revisions) != 2 || detail.ResourceVersion == "" {
		t.Fatalf("detail: %d %+v", code, detail)
	}
	post := func(verb, rv string) (int, string) {
		r, _ := http.NewRequest("POST", base+"/api/rollouts/"+ns+"/"+name+"/"+verb, strings.NewReader(fmt.Sprintf(`{"resourceVersion":%q}`, rv)))
		r.Header.Set("X-CSRF-Token", session.CSRFToken)
		r.Header.Set("Origin", base)
		resp, err := hc.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post("abort", "1"); code != http.StatusConflict {
		t.Errorf("abort on a stale version: %d %s", code, body)
	}
	if code, body := post("promote", detail.ResourceVersion); code != http.StatusOK {
		t.Fatalf("promote: %d %s", code, body)
	}
	waitRollout(t, ns, name, time.Minute, "past step 1", func(ro *rampv1.Rollout) error {
		if ro.Status.CurrentStepIndex == nil || *ro.Status.CurrentStepIndex < 2 {
			return fmt.Errorf("step %s", stepString(ro.Status.CurrentStepIndex))
		}
		return nil
	})
	deadline := time.After(30 * time.Second)
	for seen := false; !seen; {
		select {
		case d := <-events:
			seen = strings.Contains(d, `"name":"`+name+`"`) && !strings.Contains(d, `"step":"1/8"`)
		case <-deadline:
			t.Fatal("no event after the promotion")
		}
	}

	// The API server enforces the precondition of a JSON patch.
	img, err := action.SetImage(paused, []string{"rollouts-demo=argoproj/rollouts-demo:blue"})
	if err != nil {
		t.Fatal(err)
	}
	stale, err := action.WithResourceVersion(img, paused.ResourceVersion)
	if err != nil {
		t.Fatal(err)
	}
	err = env.client.Patch(context.Background(), paused.DeepCopy(), client.RawPatch(stale.Type, []byte(stale.Body)))
	if !apierrors.IsConflict(err) {
		t.Errorf("stale JSON patch: %v, want a conflict", err)
	}
}
