package analysisrun

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
	"github.com/ramp-rollouts/ramp/internal/registry"
)

// gate is a web provider for tests: a URL containing "hang" blocks until
// the gate is released (or the measurement's context ends); any other
// answers {"ok": 1} at once. It counts the measurements in flight.
type gate struct {
	release chan struct{}
	mu      sync.Mutex
	now     int
	peak    int
	entered chan struct{} // one send per measurement that started hanging
}

func newGate() *gate { return &gate{release: make(chan struct{}), entered: make(chan struct{}, 100)} }

func (g *gate) Measure(ctx context.Context, req provider.Request) (provider.Result, error) {
	if !strings.Contains(req.Metric.Provider.Web.URL, "hang") {
		return provider.Result{Value: map[string]any{"ok": 1.0}, Display: `{"ok":1}`}, nil
	}
	g.mu.Lock()
	g.now++
	g.peak = max(g.peak, g.now)
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.now--
		g.mu.Unlock()
	}()
	g.entered <- struct{}{}
	select {
	case <-g.release:
		return provider.Result{Value: map[string]any{"ok": 1.0}, Display: `{"ok":1}`}, nil
	case <-ctx.Done():
		return provider.Result{}, context.Cause(ctx)
	}
}

func (g *gate) inFlight() (now, peak int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.now, g.peak
}

// webRun is ns/<name>: one web metric on url, measured once.
func webRun(t *testing.T, name, url string) *rampv1.AnalysisRun {
	t.Helper()
	run := &rampv1.AnalysisRun{}
	if err := yaml.UnmarshalStrict([]byte(`
metadata: {namespace: ns, name: `+name+`, uid: `+name+`-uid}
spec:
  metrics:
  - name: ok
    successCondition: result.ok == 1
    provider:
      web: {url: "`+url+`"}
`), run); err != nil {
		t.Fatal(err)
	}
	run.CreationTimestamp = metav1.NewTime(controllertest.Start)
	return run
}

func gatedReconciler(t *testing.T, g *gate, objs ...client.Object) (*controllertest.Env, *Reconciler) {
	env := controllertest.New(t, nil, objs...)
	return env, &Reconciler{Client: env.Client, Secrets: env.Client, Providers: registryOf(t, g), Clock: env.Clock, Evaluator: analysis.NewEvaluator()}
}

// within runs f and fails the test if it does not return within 10 s: a
// reconcile that waits for a hanging measurement never would.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return within 10 s: a reconcile waits for a measurement", what)
	}
}

func phaseOf(t *testing.T, env *controllertest.Env, name string) rampv1.AnalysisRunStatus {
	t.Helper()
	run := &rampv1.AnalysisRun{}
	if err := env.API.Get(context.Background(), key(name), run); err != nil {
		t.Fatal(err)
	}
	return run.Status
}

// TestHangingEndpointDelaysOnlyItsRun: ten runs measure an endpoint that
// never answers; one reconciler (as one worker would) handles them and
// then an eleventh run, which completes while the ten still hang. Before
// measurements ran in the background, the first reconcile never returned.
// Released, the ten complete too.
func TestHangingEndpointDelaysOnlyItsRun(t *testing.T) {
	g := newGate()
	var objs []client.Object
	for i := range 10 {
		objs = append(objs, webRun(t, fmt.Sprintf("hang-%d", i), "http://hang.example"))
	}
	env, r := gatedReconciler(t, g, append(objs, webRun(t, "fast", "http://fast.example"))...)
	within(t, "reconciling the hanging runs", func() {
		for i := range 10 {
			if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key(fmt.Sprintf("hang-%d", i))}); err != nil {
				t.Error(err)
			}
		}
	})
	for range 10 {
		<-g.entered // all ten hang
	}
	within(t, "the fast run", func() {
		if _, err := passOf(r, key("fast")); err != nil {
			t.Error(err)
		}
	})
	if st := phaseOf(t, env, "fast"); st.Phase != rampv1.AnalysisPhaseSuccessful {
		t.Errorf("fast run %s %q, want Successful while the others hang", st.Phase, st.Message)
	}
	if now, _ := g.inFlight(); now != 10 {
		t.Errorf("%d measurements hang, want 10", now)
	}
	for i := range 10 {
		if st := phaseOf(t, env, fmt.Sprintf("hang-%d", i)); st.Phase.Completed() || len(st.MetricResults) > 0 && len(st.MetricResults[0].Measurements) > 0 {
			t.Errorf("hang-%d: %s with %v before its endpoint answered", i, st.Phase, st.MetricResults)
		}
	}
	// A second pass of a hanging run starts no second measurement.
	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key("hang-0")}); err != nil {
		t.Fatal(err)
	}
	if now, _ := g.inFlight(); now != 10 {
		t.Errorf("%d measurements after a second pass of hang-0, want still 10", now)
	}
	releaseAll(t, g, env, r, 10)
}

// releaseAll releases the gate and runs hang-0..hang-<n-1> to their end:
// each Successful after one measurement.
func releaseAll(t *testing.T, g *gate, env *controllertest.Env, r *Reconciler, n int) {
	t.Helper()
	close(g.release)
	for i := range n {
		name := fmt.Sprintf("hang-%d", i)
		if _, err := settle(r, key(name)); err != nil {
			t.Fatal(err)
		}
		if _, err := passOf(r, key(name)); err != nil {
			t.Fatal(err)
		}
		if st := phaseOf(t, env, name); st.Phase != rampv1.AnalysisPhaseSuccessful || st.MetricResults[0].Count != 1 {
			t.Errorf("%s released: %s, %d measurements; want Successful after one", name, st.Phase, st.MetricResults[0].Count)
		}
	}
}

// TestPerProviderLimit: with a limit of 3, ten runs' measurements of one
// provider run at most 3 at a time; the others wait for a slot (and none
// is lost).
func TestPerProviderLimit(t *testing.T) {
	g := newGate()
	var objs []client.Object
	for i := range 10 {
		objs = append(objs, webRun(t, fmt.Sprintf("hang-%d", i), "http://hang.example"))
	}
	env, r := gatedReconciler(t, g, objs...)
	r.MaxConcurrentPerProvider = 3
	for i := range 10 {
		if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key(fmt.Sprintf("hang-%d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		<-g.entered
	}
	if now, peak := g.inFlight(); now != 3 || peak != 3 {
		t.Errorf("%d in flight (peak %d), want 3", now, peak)
	}
	busy := 0
	for i := range 10 {
		if r.flights.busy(types.UID(fmt.Sprintf("hang-%d-uid", i)), "ok") {
			busy++
		}
	}
	if busy != 10 {
		t.Errorf("%d runs have a measurement started, want 10 (7 waiting for a slot)", busy)
	}
	releaseAll(t, g, env, r, 10)
	if _, peak := g.inFlight(); peak != 3 {
		t.Errorf("peak %d measurements in flight, want 3", peak)
	}
}

// TestProviderTimeoutCap: a metric whose own timeout is a day is cut at
// MaxProviderTimeout: an Error measurement naming the metric and the cap.
func TestProviderTimeoutCap(t *testing.T) {
	g := newGate()
	run := webRun(t, "run", "http://hang.example")
	run.Spec.Metrics[0].Provider.Web.TimeoutSeconds = 86400
	env, r := gatedReconciler(t, g, run)
	r.MaxProviderTimeout = 50 * time.Millisecond
	if _, err := pass(r); err != nil {
		t.Fatal(err)
	}
	st := phaseOf(t, env, "run")
	ms := st.MetricResults[0].Measurements
	want := `metric "ok": measurement exceeded the 50ms cap on provider timeouts (--max-provider-timeout)`
	if len(ms) != 1 || ms[0].Phase != rampv1.AnalysisPhaseError || ms[0].Message != want {
		t.Errorf("measurements %+v, want one Error %q", ms, want)
	}
}

// bigValue measures a 10 KiB value.
type bigValue struct{}

func (bigValue) Measure(context.Context, provider.Request) (provider.Result, error) {
	return provider.Result{Value: 1.0, Display: strings.Repeat("9", 10<<10)}, nil
}

func registryOf(t *testing.T, p provider.Provider) *registry.Registry[provider.Provider] {
	reg := provider.NewRegistry()
	if err := reg.Register("web", p); err != nil {
		t.Fatal(err)
	}
	return reg
}
