package analysisrun

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// keyed is a web provider whose answer carries the URL it was asked for
// (holding a secret argument) in a metadata key, as a careless plugin might.
type keyed struct{}

func (keyed) Measure(_ context.Context, req provider.Request) (provider.Result, error) {
	u := req.Metric.Provider.Web.URL
	return provider.Result{Value: map[string]any{"ok": 1.0}, Display: `{"ok":1}`,
		Metadata: map[string]string{u: "seen", "plain": u, "z": "1"}}, nil
}

// TestMetadataKeysRedacted: a secret argument is masked in metadata keys as
// well as values, and the stored keys do not depend on map order.
func TestMetadataKeysRedacted(t *testing.T) {
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "creds"},
		Data: map[string][]byte{"token": []byte("ZQSENTINEL")}}
	run := webRun(t, "run", "http://fast.example/{{args.token}}")
	run.Spec.Args = []rampv1.Argument{{Name: "token", ValueFrom: &rampv1.ValueFrom{SecretKeyRef: &rampv1.SecretKeyRef{Name: "creds", Key: "token"}}}}
	env, r := gatedReconciler(t, nil, run, secret)
	r.Providers = registryOf(t, keyed{})
	if _, err := pass(r); err != nil {
		t.Fatal(err)
	}
	m := phaseOf(t, env, "run").MetricResults[0].Measurements[0]
	for k, v := range m.Metadata {
		if strings.Contains(k+v, "ZQSENTINEL") {
			t.Errorf("metadata %q: %q holds the secret", k, v)
		}
	}
	if len(m.Metadata) != 3 || m.Metadata["z"] != "1" {
		t.Errorf("metadata %v, want its 3 entries kept", m.Metadata)
	}
}
