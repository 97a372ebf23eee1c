//go:build e2e

package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Helpers of the SaaS provider tests (provider_<name>_test.go): their
// vendors cannot run here, so each test serves the vendor's documented
// protocol from this process on 127.0.0.1 and points the provider's
// credential Secret at it.

// credentialNamespace is where the suite's controller reads provider
// credential Secrets: it runs without $POD_NAMESPACE, so upstream's default.
const credentialNamespace = "argo-rollouts"

// credentialSecret creates Secret name in ns (credentialNamespace when ""),
// creating the namespace if it is absent (and leaving it: other tests share
// it), and deletes the Secret after the test.
func credentialSecret(t *testing.T, ns, name string, data map[string]string) {
	t.Helper()
	ctx := context.Background()
	if ns == "" {
		ns = credentialNamespace
		err := env.client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		if client.IgnoreAlreadyExists(err) != nil {
			t.Fatalf("create namespace %s: %v", ns, err)
		}
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, StringData: data}
	if err := env.client.Create(ctx, s); err != nil {
		t.Fatalf("create secret %s/%s: %v", ns, name, err)
	}
	t.Cleanup(func() { _ = env.client.Delete(context.Background(), s) })
}

// randomKey is a fresh credential value with prefix, unique to the test so
// that finding it anywhere is a leak of this test's Secret.
func randomKey(prefix string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// assertNoSecretLeak fails the test when any form of a secret (leak_forms_test.go)
// is in an AnalysisRun or Event of ns or in the controller log at logPath.
func assertNoSecretLeak(t *testing.T, ns, logPath string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		noSecretAnywhere(t, ns, logPath, s, 1)
	}
}

// measurementMessage is the message of the last measurement of the run's
// metric, or the run's message.
func measurementMessage(ar *rampv1.AnalysisRun, metric string) string {
	for _, r := range ar.Status.MetricResults {
		if r.Name == metric && len(r.Measurements) > 0 {
			return r.Measurements[len(r.Measurements)-1].Message
		}
	}
	return ar.Status.Message
}

// runOutcome is how a run of a provider test must end: its phase and the
// stored value of its metric's one measurement.
type runOutcome struct {
	phase rampv1.AnalysisPhase
	value string
}

// expectRuns waits up to timeout for each run of want to reach its phase
// and checks its measurement; it returns the runs as last read.
func expectRuns(t *testing.T, ns string, timeout time.Duration, want map[string]runOutcome) map[string]*rampv1.AnalysisRun {
	t.Helper()
	runs := map[string]*rampv1.AnalysisRun{}
	for name, w := range want {
		ar := waitRun(t, ns, name, timeout, w.phase)
		if m := ar.Status.MetricResults[0].Measurements; len(m) != 1 || m[0].Value != w.value {
			t.Errorf("%s: measurements %+v, want one of value %s", name, m, w.value)
		}
		runs[name] = ar
	}
	return runs
}
