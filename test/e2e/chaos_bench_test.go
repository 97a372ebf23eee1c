//go:build e2e

package e2e

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// BenchmarkChaos: RAMP_CHAOS_ROLLOUTS Rollouts of 3 replicas (half canary
// with timed pauses and a web analysis step against a loopback server, half
// blue-green with autoPromotionSeconds), updated again each time they are
// Healthy, while two controller replicas (supervised by `ramp-cluster
// start`, as make up runs the controller) are SIGKILLed RAMP_CHAOS_KILLS
// times 1-10 s apart and the kube-apiserver is frozen (SIGSTOP/SIGCONT) for
// RAMP_CHAOS_FREEZE. Prints figures; fails only on correctness: a pause
// ended before its duration, a step skipped or repeated, a Rollout not
// Healthy within 10 minutes of the last fault. Defaults are the small
// version make test runs (10 rollouts, 5 kills, 10 s); make chaos runs
// 100, 30 and 45 s.
func BenchmarkChaos(b *testing.B) {
	n, kills := envInt(b, "RAMP_CHAOS_ROLLOUTS", 10), envInt(b, "RAMP_CHAOS_KILLS", 5)
	freeze, err := time.ParseDuration(cmp.Or(os.Getenv("RAMP_CHAOS_FREEZE"), "10s"))
	if err != nil {
		b.Fatalf("RAMP_CHAOS_FREEZE: %v", err)
	}
	const replicas = 3
	ns := namespace(b, "chaos")
	var measured atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		measured.Add(1)
		_, _ = w.Write([]byte(`{"ok": true}`))
	}))
	b.Cleanup(srv.Close)
	apply(b, ns, `apiVersion: argoproj.io/v1alpha1
kind: AnalysisTemplate
metadata: {name: web-ok}
spec:
  args: [{name: url}]
  metrics:
  - name: ok
    successCondition: result == true
    provider:
      web: {url: "{{args.url}}", jsonPath: "{$.ok}"}
`)
	ctrls := superviseControllers(b, ns, 2)
	rec := recordChaos(ns)
	b.Cleanup(rec.stop)
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("r-%03d", i)
		if i%2 == 0 {
			apply(b, ns, rolloutYAML{name: names[i], replicas: replicas, instance: ns, canary: fmt.Sprintf(`maxSurge: 1
maxUnavailable: 0
steps:
- setWeight: 34
- pause: {duration: 2s}
- analysis: {templates: [{templateName: web-ok}], args: [{name: url, value: %q}]}
- setWeight: 67
- pause: {duration: 2s}`, srv.URL)}.String())
		} else {
			apply(b, ns, blueGreenYAML(names[i], replicas, ns, "autoPromotionSeconds: 2"))
		}
	}
	waitAllHealthy(b, ns, n, 5*time.Minute)
	rec.arm()

	// Each Rollout found Healthy is updated again until the faults end.
	ctx, stopUpdates := context.WithCancel(context.Background())
	var updates atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		version := map[string]int{}
		for ctx.Err() == nil {
			var list rampv1.RolloutList
			if err := env.client.List(ctx, &list, client.InNamespace(ns)); err == nil {
				for i := range list.Items {
					ro := &list.Items[i]
					if healthy(replicas, "")(ro) == nil && ctx.Err() == nil {
						version[ro.Name]++
						if setImageQuiet(ctx, ns, ro.Name, fmt.Sprintf("registry.example/app:v%d", version[ro.Name]+1)) == nil {
							updates.Add(1)
						}
					}
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()

	start := time.Now()
	var restarts []time.Duration
	var rmu sync.Mutex
	frozen := false
	for k := 0; k < kills; k++ {
		if k == kills/2 && !frozen {
			freezeAPIServer(b, freeze)
			frozen = true
		}
		time.Sleep(time.Duration(1000+rand.IntN(9000)) * time.Millisecond) // the fault schedule, not a wait for a condition
		c, pid := ctrls.runningOne(b)
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			b.Fatalf("SIGKILL %s (pid %d): %v", c.name, pid, err)
		}
		killed := time.Now()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for deadline := killed.Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if c.childPid() != pid && c.ready() == nil {
					rmu.Lock()
					restarts = append(restarts, time.Since(killed))
					rmu.Unlock()
					return
				}
			}
		}()
	}
	if !frozen {
		freezeAPIServer(b, freeze)
	}
	lastFault := time.Now()
	stopUpdates()
	recovered := waitAllHealthy(b, ns, n, 10*time.Minute)
	wg.Wait()
	rep := rec.report(replicas)

	b.Logf("chaos: %d rollouts (%d canary, %d blue-green) x %d replicas, %d updates during %s of faults: %d SIGKILLs, API server frozen %s",
		n, (n+1)/2, n/2, replicas, updates.Load(), lastFault.Sub(start).Round(time.Second), kills, freeze)
	b.Logf("chaos: all Healthy %s after the last fault; %d controller exits restarted by the supervisor; %d web measurements",
		recovered.Round(100*time.Millisecond), ctrls.exits(), measured.Load())
	b.Logf("chaos: SIGKILL to ready again (supervisor back-off included): %s", durations(restarts))
	b.Logf("chaos: %d pauses ended, %d early; end after startTime (second resolution) %s..%s; %d revisions stepped, %d steps skipped or repeated",
		rep.pauses, rep.early, rep.shortest.Round(time.Millisecond), rep.longest.Round(time.Millisecond), rep.revisions, len(rep.problems)-rep.early)
	b.Logf("chaos: fewest serving pods %d (%s; canary ready pods, blue-green pods the active Service selects; want >= %d); below: %v",
		rep.minAvail, rep.minAvailApp, replicas, rep.below)
	b.ReportMetric(recovered.Seconds(), "s-to-healthy-after-faults")
	for _, p := range rep.problems {
		b.Error(p)
	}
}

// waitAllHealthy waits until the n Rollouts of ns are Healthy on their
// current template, and returns how long that took.
func waitAllHealthy(b *testing.B, ns string, n int, timeout time.Duration) time.Duration {
	b.Helper()
	start := time.Now()
	eventually(b, timeout, "all Healthy", func() error {
		var list rampv1.RolloutList
		if err := env.client.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
			return err
		}
		var not []string
		for i := range list.Items {
			if err := healthy(3, "")(&list.Items[i]); err != nil {
				not = append(not, list.Items[i].Name+": "+err.Error())
			}
		}
		if len(list.Items) != n || len(not) > 0 {
			return fmt.Errorf("%d of %d Healthy; %.300s", len(list.Items)-len(not), n, strings.Join(not, "; "))
		}
		return nil
	})
	return time.Since(start)
}

// setImageQuiet is setImageDirect returning the error (a write during the
// API-server freeze fails or times out; the updater tries again).
func setImageQuiet(ctx context.Context, ns, name, image string) error {
	ro := &rampv1.Rollout{}
	ro.Namespace, ro.Name = ns, name
	body := fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":%q}]}}}}`, image)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return env.client.Patch(ctx, ro, client.RawPatch("application/merge-patch+json", []byte(body)))
}

// freezeAPIServer stops the local kube-apiserver (SIGSTOP) for d, then
// continues it; the process is the one of $RAMP_STATE/cluster's pid file.
func freezeAPIServer(b *testing.B, d time.Duration) {
	b.Helper()
	pid := pidOf(b, filepath.Join(os.Getenv("RAMP_STATE"), "cluster", "pids", "kube-apiserver.pid"), "kube-apiserver")
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		b.Fatalf("SIGSTOP kube-apiserver: %v", err)
	}
	defer func() { _ = syscall.Kill(pid, syscall.SIGCONT) }()
	time.Sleep(d) // the fault itself
}

// pidOf reads the pid of a pid file ("<pid> <binary> ...") and checks the
// pid still runs a binary named bin.
func pidOf(b *testing.B, file, bin string) int {
	b.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		b.Fatalf("%v (RAMP_STATE must be the control plane's state directory; make test sets it)", err)
	}
	f := strings.Fields(string(data))
	pid, err := strconv.Atoi(f[0])
	if err != nil || len(f) < 2 || filepath.Base(f[1]) != bin {
		b.Fatalf("pid file %s: %q is not a %s pid", file, data, bin)
	}
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err != nil || filepath.Base(strings.TrimSuffix(exe, " (deleted)")) != bin {
		b.Fatalf("pid %d of %s no longer runs %s", pid, file, bin)
	}
	return pid
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		b.Fatalf("%s=%q: want a count", name, v)
	}
	return n
}

func durations(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.Round(10 * time.Millisecond).String()
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// supervisedController is one controller replica run by `ramp-cluster start`.
type supervisedController struct {
	name, state, probe string
}

type supervisedControllers []*supervisedController

// superviseControllers starts count controller replicas for instance ns
// (leader election through a Lease in ns) under ramp-cluster's supervisor.
func superviseControllers(b *testing.B, ns string, count int) supervisedControllers {
	b.Helper()
	rc, bin := os.Getenv("RAMP_CLUSTER_BIN"), os.Getenv("RAMP_CONTROLLER_BIN")
	if rc == "" || bin == "" {
		b.Fatal("RAMP_CLUSTER_BIN and RAMP_CONTROLLER_BIN must be set (make test and make chaos set them)")
	}
	state, err := os.MkdirTemp("", "ramp-chaos-") // kept: the supervisors' and controllers' logs
	if err != nil {
		b.Fatal(err)
	}
	var out supervisedControllers
	for i := 0; i < count; i++ {
		probe, err := freePort()
		if err != nil {
			b.Fatal(err)
		}
		metrics, err := freePort()
		if err != nil {
			b.Fatal(err)
		}
		c := &supervisedController{name: fmt.Sprintf("chaos-%d", i), state: state, probe: probe}
		cmd := exec.Command(rc, "start", "--state", state, "--name", c.name, "--", bin,
			"--kubeconfig", env.kubeconfig, "--instance-id", ns, "--leader-election-namespace", ns,
			"--health-probe-bind-address", probe, "--metrics-bind-address", metrics, "--log-format", "json")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("ramp-cluster start %s: %v\n%s", c.name, err, out)
		}
		b.Cleanup(func() {
			_ = exec.Command(rc, "stop", "--state", state, "--name", c.name).Run()
			fmt.Fprintf(os.Stderr, "e2e: chaos controller log %s\n", filepath.Join(state, "logs", c.name+".log"))
		})
		out = append(out, c)
	}
	for _, c := range out {
		eventually(b, 60*time.Second, c.name+" ready", c.ready)
	}
	return out
}

func (c *supervisedController) ready() error {
	code, body, err := httpGet("http://" + c.probe + "/readyz")
	if err == nil && code != http.StatusOK {
		err = fmt.Errorf("status %d: %s", code, body)
	}
	return err
}

// childPid is the pid of the controller process the supervisor runs now (0 if none).
func (c *supervisedController) childPid() int {
	data, err := os.ReadFile(filepath.Join(c.state, "pids", c.name+".child"))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0
	}
	pid, _ := strconv.Atoi(f[0])
	if syscall.Kill(pid, 0) != nil {
		return 0
	}
	return pid
}

// runningOne picks a replica whose controller process runs, at random,
// waiting for one while all are in their restart back-off.
func (cs supervisedControllers) runningOne(b *testing.B) (*supervisedController, int) {
	b.Helper()
	var c *supervisedController
	var pid int
	eventually(b, 2*time.Minute, "a controller replica running", func() error {
		for _, i := range rand.Perm(len(cs)) {
			if pid = cs[i].childPid(); pid != 0 {
				c = cs[i]
				return nil
			}
		}
		return fmt.Errorf("every replica is in its restart back-off")
	})
	return c, pid
}

// exits counts the controller exits the supervisors logged.
func (cs supervisedControllers) exits() int {
	n := 0
	for _, c := range cs {
		data, _ := os.ReadFile(filepath.Join(c.state, "logs", c.name+".log"))
		n += strings.Count(string(data), "ramp-cluster supervise: "+c.name+" exited")
	}
	return n
}
