package analysisrun

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	ctrl "sigs.k8s.io/controller-runtime"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
)

// TestStatusTooLarge: the API server refuses the status that records a
// measurement as too large (413 for a request body over its limit, or
// etcd's limit, which kube-apiserver returns as a 500). The run does not
// stay without a phase, re-measuring forever: it ends in Error, saying
// why, with its history trimmed, in the same pass.
func TestStatusTooLarge(t *testing.T) {
	for name, apiErr := range map[string]error{
		"413":  apierrors.NewRequestEntityTooLargeError("limit is 3145728"),
		"etcd": apierrors.NewInternalError(errors.New("etcdserver: request is too large")),
	} {
		t.Run(name, func(t *testing.T) {
			env, r := gatedReconciler(t, newGate(), webRun(t, "run", "http://fast.example"))
			env.FailAt(controllertest.Match{Verb: "patch", Kind: "AnalysisRun"}, 1, apiErr) // the first patch starts the run
			if _, err := pass(r); err != nil {
				t.Fatalf("pass: %v", err)
			}
			if env.Pending() {
				t.Fatal("the refused patch was never made")
			}
			st := phaseOf(t, env, "run")
			if st.Phase != rampv1.AnalysisPhaseError || st.Message != analysis.MessageStatusTooLarge || st.CompletedAt == nil {
				t.Errorf("run %s %q, want Error %q", st.Phase, st.Message, analysis.MessageStatusTooLarge)
			}
		})
	}
}

// TestStoredStringsTruncated: a measured value over 4 KiB is stored cut,
// with the marker.
func TestStoredStringsTruncated(t *testing.T) {
	g := newGate()
	env, r := gatedReconciler(t, g, webRun(t, "run", "http://fast.example"))
	r.Providers = registryOf(t, bigValue{})
	if _, err := pass(r); err != nil {
		t.Fatal(err)
	}
	ms := phaseOf(t, env, "run").MetricResults[0].Measurements
	if len(ms) != 1 || len(ms[0].Value) > analysis.MaxStoredString || !strings.Contains(ms[0].Value, "…[truncated ") {
		t.Errorf("stored value of %d bytes, want at most %d with the marker", len(ms[0].Value), analysis.MaxStoredString)
	}
}

// TestSecretLabelSelector: with a selector, a secretKeyRef argument reads
// only a Secret whose labels match; another is an Error measurement naming
// the argument, the Secret and the flag, never the value.
func TestSecretLabelSelector(t *testing.T) {
	for _, c := range []struct {
		labels map[string]string
		want   rampv1.AnalysisPhase
	}{
		{map[string]string{"ramp.io/analysis": "true"}, rampv1.AnalysisPhaseSuccessful},
		{nil, rampv1.AnalysisPhaseError},
	} {
		t.Run(string(c.want), func(t *testing.T) {
			secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "creds", Labels: c.labels},
				Data: map[string][]byte{"token": []byte("ZQSENTINEL")}}
			run := webRun(t, "run", "http://fast.example/{{args.token}}")
			run.Spec.Args = []rampv1.Argument{{Name: "token", ValueFrom: &rampv1.ValueFrom{SecretKeyRef: &rampv1.SecretKeyRef{Name: "creds", Key: "token"}}}}
			env, r := gatedReconciler(t, newGate(), run, secret)
			r.SecretSelector = labels.SelectorFromSet(labels.Set{"ramp.io/analysis": "true"})
			if _, err := pass(r); err != nil {
				t.Fatal(err)
			}
			m := phaseOf(t, env, "run").MetricResults[0].Measurements[0]
			if m.Phase != c.want {
				t.Errorf("measurement %s %q, want %s", m.Phase, m.Message, c.want)
			}
			want := `metric "ok": argument "token": secret "creds" does not match the controller's --secret-label-selector`
			if c.want == rampv1.AnalysisPhaseError && m.Message != want {
				t.Errorf("message %q, want %q", m.Message, want)
			}
			if strings.Contains(m.Message+m.Value, "ZQSENTINEL") {
				t.Errorf("the secret value is stored: %+v", m)
			}
		})
	}
}

// TestDeletedRunResultDropped: a run deleted while its measurement hangs
// leaves nothing behind when the measurement ends, and wakes no one.
func TestDeletedRunResultDropped(t *testing.T) {
	g := newGate()
	run := webRun(t, "run", "http://hang.example")
	_, r := gatedReconciler(t, g, run)
	env := r.Client
	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key("run")}); err != nil {
		t.Fatal(err)
	}
	<-g.entered
	if err := env.Delete(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key("run")}); err != nil {
		t.Fatal(err)
	}
	close(g.release)
	r.flights.wg.Wait()
	if r.flights.pending(key("run")) || r.flights.busy(run.UID, "ok") {
		t.Error("the deleted run's measurement is kept")
	}
}

// TestConditionBudgetInRun: a condition that overruns the evaluator's
// budget is an Error measurement naming the metric and the budget; the
// pass is not held by it.
func TestConditionBudgetInRun(t *testing.T) {
	run := webRun(t, "run", "http://fast.example")
	run.Spec.Metrics[0].SuccessCondition = "all(result, {all(result, {# >= 0})})"
	env, r := gatedReconciler(t, newGate(), run)
	r.Providers, r.Evaluator = registryOf(t, bigList{}), analysis.NewBudgetedEvaluator(50*time.Millisecond)
	if _, err := pass(r); err != nil {
		t.Fatal(err)
	}
	ms := phaseOf(t, env, "run").MetricResults[0].Measurements
	if len(ms) != 1 || ms[0].Phase != rampv1.AnalysisPhaseError ||
		!strings.HasPrefix(ms[0].Message, `metric "ok": evaluating successCondition`) || !strings.HasSuffix(ms[0].Message, "condition evaluation exceeded 50ms budget") {
		t.Errorf("measurements %+v, want one Error naming the metric and the 50ms budget", ms)
	}
}

// bigList measures a list of 20k numbers.
type bigList struct{}

func (bigList) Measure(context.Context, provider.Request) (provider.Result, error) {
	v := make([]any, 20000)
	for i := range v {
		v[i] = float64(i)
	}
	return provider.Result{Value: v, Display: "[...]"}, nil
}
