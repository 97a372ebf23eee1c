package analysisrun

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/job"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
)

// newReconciler is an AnalysisRun reconciler with the job provider on a
// fake API holding objs.
func newReconciler(t testing.TB, objs ...client.Object) (*controllertest.Env, *Reconciler) {
	t.Helper()
	env := controllertest.New(t, nil, objs...)
	reg := provider.NewRegistry()
	if err := reg.Register("job", job.New(env.Client, env.Client)); err != nil {
		t.Fatal(err)
	}
	return env, &Reconciler{Client: env.Client, Secrets: env.Client, Providers: reg, Clock: env.Clock, Evaluator: analysis.NewEvaluator()}
}

// jobRun is ns/run: one job metric measured once, deleted ttl seconds
// after it completes.
func jobRun(t testing.TB) *rampv1.AnalysisRun {
	t.Helper()
	run := &rampv1.AnalysisRun{}
	if err := yaml.UnmarshalStrict([]byte(`
metadata: {namespace: ns, name: run, uid: run-uid}
spec:
  ttlStrategy: {secondsAfterCompletion: 60}
  metrics:
  - name: check
    provider:
      job:
        spec:
          template:
            spec:
              restartPolicy: Never
              containers: [{name: c, image: busybox}]
`), run); err != nil {
		t.Fatal(err)
	}
	run.CreationTimestamp = metav1.NewTime(controllertest.Start)
	return run
}

// pass is what the controller does for ns/run when woken: a reconcile, and
// another each time a measurement it started ends with a result to record
// (the controller's watch on r.events), once the run has nothing in
// flight. It returns the last reconcile's result.
func pass(r *Reconciler) (ctrl.Result, error) { return passOf(r, key("run")) }

func passOf(r *Reconciler, name client.ObjectKey) (ctrl.Result, error) {
	for range 10 {
		res, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: name})
		if err != nil {
			return res, err
		}
		if pending, err := settle(r, name); err != nil || !pending {
			return res, err
		}
	}
	return ctrl.Result{}, fmt.Errorf("%s: still recording measurements after 10 reconciles", name)
}

// settle waits (up to 10 s) until run name has no measurement in flight,
// and reports whether results wait to be recorded.
func settle(r *Reconciler, name client.ObjectKey) (bool, error) {
	deadline := time.After(10 * time.Second)
	for {
		idle, changed := r.flights.idle(name)
		if idle {
			return r.flights.pending(name), nil
		}
		select {
		case <-changed:
		case <-deadline:
			return false, fmt.Errorf("%s: measurements still in flight after 10 s", name)
		}
	}
}

func key(name string) client.ObjectKey { return client.ObjectKey{Namespace: "ns", Name: name} }
