//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// env is what every test shares: the control plane and the controller.
var env struct {
	kubeconfig string
	kubectl    string
	rest       *rest.Config
	client     client.Client
	controller *controllerProcess
}

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	env.kubeconfig = os.Getenv("RAMP_E2E_KUBECONFIG")
	env.kubectl = os.Getenv("RAMP_KUBECTL")
	if env.kubeconfig == "" || env.kubectl == "" {
		fmt.Fprintln(os.Stderr, "e2e: RAMP_E2E_KUBECONFIG and RAMP_KUBECTL are unset; run the suite with `make test`")
		return 1
	}
	var err error
	env.rest, err = clientcmd.BuildConfigFromFlags("", env.kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	env.rest.QPS, env.rest.Burst = 100, 200
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = rampv1.AddToScheme(scheme)
	env.client, err = client.New(env.rest, client.Options{Scheme: scheme})
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	env.controller, err = startController(leaseNamespace)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: start controller:", err)
		return 1
	}
	defer env.controller.stop()
	defer stopPrometheus()
	defer stopSharedDashboard()
	return m.Run()
}

// namespace creates a fresh namespace for the test and deletes it afterwards.
func namespace(t testing.TB, prefix string) string {
	t.Helper()
	name := fmt.Sprintf("%s-%04x", prefix, rand.IntN(1<<16))
	createNamespace(t, name)
	return name
}

// createNamespace creates the named namespace (if missing) and deletes it after the test.
func createNamespace(t testing.TB, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := env.client.Create(context.Background(), ns); client.IgnoreAlreadyExists(err) != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
	t.Cleanup(func() { _ = env.client.Delete(context.Background(), ns) })
}

// kubectl runs the real kubectl against the local control plane.
func kubectl(t testing.TB, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, env.kubectl, append([]string{"--kubeconfig", env.kubeconfig}, args...)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	err = cmd.Run()
	return o.String(), e.String(), err
}

// eventually polls cond every 100ms until it returns nil or the deadline passes.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not true after %s: %v", what, timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
