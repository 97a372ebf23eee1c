//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// profileNamespace is where the suite's controller (no $POD_NAMESPACE)
// reads provider credential Secrets: upstream's default namespace.
const profileNamespace = "argo-rollouts"

// putCredentialSecret creates Secret name in profileNamespace (and the
// namespace, if absent; it is shared by tests and never deleted) with data,
// and deletes the Secret when the test ends.
func putCredentialSecret(t *testing.T, name string, data map[string]string) {
	t.Helper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: profileNamespace}}
	if err := env.client.Create(ctx, ns); client.IgnoreAlreadyExists(err) != nil {
		t.Fatalf("create namespace %s: %v", profileNamespace, err)
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: profileNamespace}, StringData: data}
	if err := env.client.Create(ctx, s); err != nil {
		t.Fatalf("create secret %s/%s: %v", profileNamespace, name, err)
	}
	t.Cleanup(func() { _ = env.client.Delete(context.Background(), s) })
}

// assertSecretAbsent fails the test if any form of secret (raw, escaped,
// base64, pieces: secretForms) is in an AnalysisRun or Event of ns, or in
// the suite controller's log.
func assertSecretAbsent(t *testing.T, ns, secret string) {
	t.Helper()
	forms := secretForms(secret)
	checked := 0
	check := func(where string, doc any) {
		walkStrings(doc, func(s string) {
			checked++
			for _, f := range forms {
				if strings.Contains(s, f.text) {
					t.Errorf("%s holds the secret as %s: %.300q", where, f.name, s)
				}
			}
		})
	}
	for _, list := range []client.ObjectList{&rampv1.AnalysisRunList{}, &corev1.EventList{}} {
		if err := env.client.List(context.Background(), list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("%T", list), asJSONValue(t, list))
	}
	eachLogLine(t, env.controller.logPath, check)
	if checked < 50 {
		t.Errorf("only %d strings checked: the runs or the log are missing", checked)
	}
}

// stopProcess sends SIGTERM to p, then SIGKILL if exited is not closed
// after 10 s, and waits for it.
func stopProcess(p *os.Process, exited <-chan struct{}) {
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = p.Kill()
		<-exited
	}
}

// templateWithRuns is an AnalysisTemplate named name taking the argument
// arg, with metrics (its "  metrics:" block), and per value an AnalysisRun
// of the same metrics named for the value, with arg set to it.
func templateWithRuns(name, arg, metrics string, values ...string) string {
	out := fmt.Sprintf("apiVersion: argoproj.io/v1alpha1\nkind: AnalysisTemplate\nmetadata: {name: %s}\nspec:\n  args:\n  - name: %s\n%s", name, arg, metrics)
	for _, v := range values {
		out += fmt.Sprintf("---\napiVersion: argoproj.io/v1alpha1\nkind: AnalysisRun\nmetadata: {name: %s}\nspec:\n  args:\n  - {name: %s, value: %s}\n%s", v, arg, v, metrics)
	}
	return out
}
