package analysisrun

import (
	"context"
	"sync/atomic"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// counter is a web provider that answers {"ok": 1} and counts the calls.
type counter struct{ calls atomic.Int32 }

func (c *counter) Measure(context.Context, provider.Request) (provider.Result, error) {
	c.calls.Add(1)
	return provider.Result{Value: map[string]any{"ok": 1.0}, Display: `{"ok":1}`}, nil
}

// staleReads is a client whose cache still holds run as it was.
type staleReads struct {
	client.Client
	run *rampv1.AnalysisRun
}

func (s staleReads) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if ar, ok := obj.(*rampv1.AnalysisRun); ok && key == client.ObjectKeyFromObject(s.run) {
		s.run.DeepCopyInto(ar)
		return nil
	}
	return s.Client.Get(ctx, key, obj, opts...)
}

// TestStaleCacheMeasuresNothingAgain: a pass woken while the informer cache
// still holds the run from before our last status patch (the one that
// recorded the measurement and completed it) neither measures again nor
// writes. CI caught the e2e TestExperiment asking its web endpoint twice
// for a metric measured once.
func TestStaleCacheMeasuresNothingAgain(t *testing.T) {
	c := &counter{}
	env, r := gatedReconciler(t, nil, webRun(t, "run", "http://metrics.example/ok"))
	r.Providers = registryOf(t, c)
	req := ctrl.Request{NamespacedName: key("run")}
	if _, err := r.Reconcile(context.Background(), req); err != nil { // Running; the measurement starts
		t.Fatal(err)
	}
	if _, err := settle(r, key("run")); err != nil {
		t.Fatal(err)
	}
	before := &rampv1.AnalysisRun{}
	if err := env.API.Get(context.Background(), key("run"), before); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reconcile(context.Background(), req); err != nil { // records it: Successful
		t.Fatal(err)
	}
	if st := phaseOf(t, env, "run"); st.Phase != rampv1.AnalysisPhaseSuccessful || c.calls.Load() != 1 {
		t.Fatalf("phase %s after %d calls, want Successful after 1", st.Phase, c.calls.Load())
	}
	mark := len(env.Log())
	r.Client = staleReads{Client: r.Client, run: before}
	res, err := r.Reconcile(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := settle(r, key("run")); err != nil {
		t.Fatal(err)
	}
	if n := c.calls.Load(); n != 1 {
		t.Errorf("a pass from the stale cache measured again: %d calls, want 1", n)
	}
	if w := env.Since(mark); len(w) != 0 {
		t.Errorf("a pass from the stale cache wrote %v", w)
	}
	if res.RequeueAfter == 0 {
		t.Error("a pass from the stale cache asked for no safety-net requeue")
	}
	if st := phaseOf(t, env, "run"); st.Phase != rampv1.AnalysisPhaseSuccessful {
		t.Errorf("phase %s, want Successful kept", st.Phase)
	}
}
