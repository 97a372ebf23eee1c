//go:build e2e

package e2e

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// BenchmarkFleet is issue 20's fleet: RAMP_BENCH_FLEET Rollouts (30 in
// make test, 300 in make bench) of 1 replica with `setWeight: 50` and
// `pause: {duration: 5}`, on a controller of their own at the default QPS,
// all updated at once. It prints the time from the update to each Rollout's
// Healthy (p50, max, seen through a watch), the controller's API requests
// per Rollout by kind and verb (Events apart), its live reads, reconcile
// latency (p50/p99 from controller-runtime's histogram), RSS and CPU.
// RAMP_BENCH_FLEET_FLAGS adds controller flags (--kube-api-qps 100).
// Figures only: it asserts that every Rollout gets there and that the
// controller made no live read.
func BenchmarkFleet(b *testing.B) {
	n := benchSize(b, "RAMP_BENCH_FLEET", 30)
	ns := namespace(b, "fleet")
	p := ownController(b, ns, ns, strings.Fields(os.Getenv("RAMP_BENCH_FLEET_FLAGS"))...)
	ctx := context.Background()
	idle := memory(b, p)
	created := time.Now()
	createFleet(b, ns, n)
	waitFleet(b, ns, n, "all Healthy after creation", func(ro *rampv1.Rollout) bool { return healthy(1, "")(ro) == nil })
	b.Logf("%d rollouts: all Healthy %s after the first create; controller RSS %.0f MiB idle, %.0f MiB loaded (Go heap in use %.0f MiB)",
		n, time.Since(created).Round(time.Millisecond), idle, memory(b, p), goHeap(b, p))

	before, cpu0, server0 := fleetSample(b, p), cpuSeconds(b, p), apiServerWrites(b)
	var list rampv1.RolloutList
	if err := env.client.List(ctx, &list, client.InNamespace(ns)); err != nil {
		b.Fatal(err)
	}
	done := map[string]time.Duration{}
	var mu sync.Mutex
	watchCtx, stop := context.WithCancel(ctx)
	defer stop()
	watched := make(chan error, 1)
	start := time.Now()
	go func() {
		watched <- watchFrom(watchCtx, &rampv1.RolloutList{}, ns, list.ResourceVersion, func(_ watch.EventType, o client.Object) bool {
			ro, ok := o.(*rampv1.Rollout)
			if !ok || ro.Generation != 2 || healthy(1, "")(ro) != nil {
				return false
			}
			mu.Lock()
			defer mu.Unlock()
			if _, seen := done[ro.Name]; !seen {
				done[ro.Name] = time.Since(start)
			}
			return len(done) == n
		})
	}()
	sender := unthrottled(b)
	var wg sync.WaitGroup
	for w := range 20 { // the update itself at 20 requests in flight and no client-side limit, so that it takes far less than a pause
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 20 {
				ro := &rampv1.Rollout{}
				ro.Namespace, ro.Name = ns, fleetName(i)
				patch := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"registry.example/app:v2"}]}}}}`))
				if err := sender.Patch(ctx, ro, patch); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	sent := time.Since(start)
	select {
	case err := <-watched:
		if err != nil {
			b.Fatal(err)
		}
	case <-time.After(time.Duration(max(5, n/50)) * time.Minute):
		mu.Lock()
		b.Fatalf("%d of %d Rollouts Healthy with the new image before the deadline", len(done), n)
	}
	// The last passes (a final status patch) may land just after Healthy
	// was seen: wait until the fleet's requests stop moving.
	after := settledRequests(b, p)
	cpu := cpuSeconds(b, p) - cpu0
	server := apiServerWrites(b) - server0
	times := make([]time.Duration, 0, n)
	for _, d := range done {
		times = append(times, d)
	}
	slices.Sort(times)
	per, events, reads := perRollout(before.requests, after.requests, n)
	if reads > 0 {
		b.Errorf("the controller made %.0f live reads during the update, want 0", reads)
	}
	b.Logf("update of %d rollouts (sent in %s): Healthy p50 %s, max %s after the first patch",
		n, sent.Round(time.Millisecond), times[len(times)/2].Round(10*time.Millisecond), times[len(times)-1].Round(10*time.Millisecond))
	b.Logf("requests per rollout, Events apart: %s; Events %.2f per rollout; live reads %.0f", per, events, reads)
	p50, p99 := after.reconcile.quantile(before.reconcile, 0.5), after.reconcile.quantile(before.reconcile, 0.99)
	b.Logf("rollout reconcile latency during the update: p50 %s, p99 %s over %.0f passes; controller CPU %.1f s (%.1f ms a pass), RSS %.0f MiB, peak %.0f MiB",
		p50.Round(100*time.Microsecond), p99.Round(100*time.Microsecond), after.reconcile.count-before.reconcile.count, cpu,
		1000*cpu/max(1, after.reconcile.count-before.reconcile.count), memory(b, p), procStatus(b, p, "VmHWM:"))
	b.Logf("the API server handled %.0f writes from everyone during the update (%.0f a second until the last Healthy; Ramp's %.0f, Events included)",
		server, server/times[len(times)-1].Seconds(), perTotal(before.requests, after.requests)+events*float64(n))
	b.ReportMetric(float64(times[len(times)/2].Milliseconds())/1000, "s-p50")
	b.ReportMetric(float64(times[len(times)-1].Milliseconds())/1000, "s-max")
	b.ReportMetric(perTotal(before.requests, after.requests)/float64(n), "requests/rollout")
}

// unthrottled is a client of the suite's identity without a client-side
// rate limit, for sending a fleet's update at once.
func unthrottled(b *testing.B) client.Client {
	b.Helper()
	cfg := rest.CopyConfig(env.rest)
	cfg.QPS, cfg.RateLimiter = -1, nil // a negative QPS: no limiter
	c, err := client.New(cfg, client.Options{Scheme: env.client.Scheme()})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// benchSize is the positive number in the environment variable name, or
// def when it is unset.
func benchSize(b *testing.B, name string, def int) int {
	b.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

func fleetName(i int) string { return fmt.Sprintf("app-%05d", i) }

// createFleet creates n Rollouts at 10 requests in flight.
func createFleet(b *testing.B, ns string, n int) {
	b.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for w := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 10 {
				ro := &rampv1.Rollout{}
				doc := rolloutYAML{name: fleetName(i), replicas: 1, instance: ns, canary: "steps:\n- setWeight: 50\n- pause: {duration: 5}\n"}.String()
				if err := yaml.Unmarshal([]byte(doc), ro); err != nil {
					errs <- err
					return
				}
				ro.Namespace = ns
				if err := env.client.Create(context.Background(), ro); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

func waitFleet(b *testing.B, ns string, n int, what string, done func(*rampv1.Rollout) bool) {
	b.Helper()
	// A watch, not a poll: listing thousands of Rollouts ten times a second
	// would load the API server more than the fleet does.
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(max(5, n/50))*time.Minute)
	defer cancel()
	ok, count := map[string]bool{}, 0
	err := watchFrom(ctx, &rampv1.RolloutList{}, ns, "", func(_ watch.EventType, o client.Object) bool {
		if ro, is := o.(*rampv1.Rollout); is && ok[ro.Name] != done(ro) {
			ok[ro.Name] = !ok[ro.Name]
			if ok[ro.Name] {
				count++
			} else {
				count--
			}
		}
		return count == n
	})
	if err != nil || ctx.Err() != nil {
		b.Fatalf("%s: %v (%d of %d)", what, cmp.Or(err, ctx.Err()), count, n)
	}
}

// fleetReading is one scrape of the controller's request counter (by kind
// and verb) and of its rollout reconcile-time histogram.
type fleetReading struct {
	requests  map[string]float64
	reconcile histogramReading
}

func fleetSample(b *testing.B, p *controllerProcess) fleetReading {
	b.Helper()
	req, err := metricSum(p, "controller_clientset_k8s_request_total", nil, "kind,verb")
	if err != nil {
		b.Fatal(err)
	}
	h, err := readHistogram(p, "controller_runtime_reconcile_time_seconds", map[string]string{"controller": "rollout"})
	if err != nil {
		b.Fatal(err)
	}
	return fleetReading{requests: req, reconcile: h}
}

// settledRequests samples until two readings a second apart agree (at most
// 30 s), and returns the last.
func settledRequests(b *testing.B, p *controllerProcess) fleetReading {
	b.Helper()
	last := fleetSample(b, p)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		time.Sleep(time.Second) // sampling a counter until it stops moving: the quiet second is the measurement
		next := fleetSample(b, p)
		if perTotal(last.requests, next.requests) == 0 {
			return next
		}
		last = next
	}
	return last
}

// perRollout formats the requests between two readings per Rollout by
// "kind verb", Events apart, and returns the Events and the live reads
// (Get and List) per Rollout and in all.
func perRollout(before, after map[string]float64, n int) (string, float64, float64) {
	var parts []string
	var events, reads float64
	keys := make([]string, 0, len(after))
	for k := range after {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		d := after[k] - before[k]
		if d == 0 {
			continue
		}
		kind, verb, _ := strings.Cut(k, ",")
		switch {
		case kind == "events":
			events += d
			continue
		case verb == "Get" || verb == "List":
			reads += d
		case verb == "Watch":
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s %.2f", kind, verb, d/float64(n)))
	}
	return strings.Join(parts, ", "), events / float64(n), reads
}

// perTotal is the requests between two readings, Events and watches apart.
func perTotal(before, after map[string]float64) float64 {
	var sum float64
	for k, v := range after {
		kind, verb, _ := strings.Cut(k, ",")
		if kind != "events" && verb != "Watch" {
			sum += v - before[k]
		}
	}
	return sum
}

// apiServerWrites is the kube-apiserver's count of write requests
// (apiserver_request_total for POST, PUT, PATCH and DELETE) from everyone.
func apiServerWrites(b *testing.B) float64 {
	b.Helper()
	cs, err := kubernetes.NewForConfig(env.rest)
	if err != nil {
		b.Fatal(err)
	}
	body, err := cs.RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	var sum float64
	for _, line := range strings.Split(string(body), "\n") {
		rest, ok := strings.CutPrefix(line, "apiserver_request_total{")
		if !ok {
			continue
		}
		labels, value, _ := strings.Cut(rest, "} ")
		for _, verb := range []string{"POST", "PUT", "PATCH", "DELETE"} {
			if strings.Contains(labels, `verb="`+verb+`"`) {
				v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
				if err != nil {
					b.Fatalf("apiserver_request_total: %q: %v", line, err)
				}
				sum += v
			}
		}
	}
	return sum
}

// cpuSeconds is the controller process's user plus system CPU time.
func cpuSeconds(b *testing.B, p *controllerProcess) float64 {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	// fields after the command name (which ends with the last ')'): state is
	// field 3 of stat(5), utime 14 and stime 15.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100 // USER_HZ is 100 on Linux
}

// histogramReading is a Prometheus histogram's cumulative buckets (upper
// bound → count) and its count, summed over the series that match.
type histogramReading struct {
	buckets map[float64]float64
	count   float64
}

func readHistogram(p *controllerProcess, name string, match map[string]string) (histogramReading, error) {
	b, err := metricSum(p, name+"_bucket", match, "le")
	if err != nil {
		return histogramReading{}, err
	}
	h := histogramReading{buckets: map[float64]float64{}}
	for le, n := range b {
		bound, err := strconv.ParseFloat(le, 64) // "+Inf" parses as +Inf
		if err != nil {
			return histogramReading{}, fmt.Errorf("%s bucket le=%q: %w", name, le, err)
		}
		h.buckets[bound] = n
	}
	c, err := metricSum(p, name+"_count", match, "")
	if err != nil {
		return histogramReading{}, err
	}
	h.count = c[""]
	return h, nil
}

// quantile of the observations made since before, as the upper bound of the
// bucket it falls in (a histogram knows no finer).
func (h histogramReading) quantile(before histogramReading, q float64) time.Duration {
	total := h.count - before.count
	if total <= 0 {
		return 0
	}
	bounds := make([]float64, 0, len(h.buckets))
	for le := range h.buckets {
		bounds = append(bounds, le)
	}
	slices.Sort(bounds)
	for _, le := range bounds {
		if h.buckets[le]-before.buckets[le] >= q*total {
			if le > 1e6 {
				return time.Duration(1<<63 - 1)
			}
			return time.Duration(le * float64(time.Second))
		}
	}
	return 0
}
