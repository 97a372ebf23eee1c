package analysisrun

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
)

// TestWriteFaults: a conflict, a 500 and a timeout at each write of a job
// run's life. The run's own writes (status, deletion after its TTL) fail
// the pass with nothing written after them (a conflicting status write may
// end it quietly); a provider's write (the Job's creation or deletion) is
// that measurement's Error, written in the same pass (a failed creation is
// retried within DefaultErrorRetryInterval; a failed deletion ends the
// terminated run, whose Job goes with it). Either way, passes without errors reach the
// end a run without faults reaches.
func TestWriteFaults(t *testing.T) {
	for _, story := range []string{"completes", "terminated"} {
		want, log := runJob(t, story, nil, nil)
		for _, m := range []controllertest.Match{{Verb: "create", Kind: "Job"}, {Verb: "delete", Kind: "Job"},
			{Verb: "patch", Kind: "AnalysisRun"}, {Verb: "delete", Kind: "AnalysisRun"}} {
			if !slices.ContainsFunc(log, func(w controllertest.Write) bool { return w.Verb == m.Verb && w.Kind == m.Kind }) {
				continue // this story does not make this write
			}
			for name, apiErr := range controllertest.Errors() {
				t.Run(story+"/"+m.String()+"/"+name, func(t *testing.T) {
					if got, _ := runJob(t, story, &m, apiErr); got != want {
						t.Errorf("after the fault the end is %s, want (as without it) %s", got, want)
					}
				})
			}
		}
	}
}

// runJob runs ns/run to its deletion: its Job completes ("completes"), or
// the run is terminated while the Job runs ("terminated").
func runJob(t *testing.T, story string, at *controllertest.Match, apiErr error) (string, []controllertest.Write) {
	env, r := newReconciler(t, jobRun(t))
	if at != nil {
		env.FailAt(*at, 0, apiErr)
	}
	var end string
	for i := range 30 {
		mark := len(env.Log())
		res, err := pass(r)
		writes := env.Since(mark)
		checkFailedPass(t, res.RequeueAfter, err, writes)
		run := &rampv1.AnalysisRun{}
		switch err := env.API.Get(context.Background(), key("run"), run); {
		case apierrors.IsNotFound(err):
			return end, env.Log()
		case err != nil:
			t.Fatal(err)
		}
		end = fmt.Sprintf("%s %q", run.Status.Phase, run.Status.Message)
		if story == "terminated" && i == 0 && !run.Spec.Terminate {
			run.Spec.Terminate = true
			if err := env.API.Update(context.Background(), run); err != nil {
				t.Fatal(err)
			}
		}
		if story == "completes" {
			completeJobs(t, env)
		}
		if err == nil && len(writes) == 0 {
			env.Clock.Step(max(res.RequeueAfter, time.Second))
		}
	}
	t.Fatalf("the run is not deleted after 30 passes; writes %v", env.Log())
	return "", nil
}

// checkFailedPass checks a pass that met an injected error: the run's own
// write fails the pass and nothing follows it; a Job's write becomes an
// Error measurement written in the same pass.
func checkFailedPass(t *testing.T, requeue time.Duration, err error, writes []controllertest.Write) {
	i := slices.IndexFunc(writes, func(w controllertest.Write) bool { return w.Err != nil })
	if i < 0 {
		return
	}
	if writes[i].Kind == "Job" {
		recorded := slices.ContainsFunc(writes[i+1:], func(w controllertest.Write) bool { return w.Verb == "patch" && w.Kind == "AnalysisRun" })
		if err != nil || !recorded || (writes[i].Verb == "create" && (requeue <= 0 || requeue > rampv1.DefaultErrorRetryInterval)) {
			t.Errorf("the Job write failed (%v): pass %v, status written %v, next in %s; want the Error measurement written (and a new measurement within %s)",
				writes[i], err, recorded, requeue, rampv1.DefaultErrorRetryInterval)
		}
		return
	}
	if err == nil && !apierrors.IsConflict(writes[i].Err) {
		t.Errorf("the pass that failed at %v returned no error", writes[i])
	}
	if after := writes[i+1:]; len(after) > 0 {
		t.Errorf("the pass that failed at %v went on to %v", writes[i], after)
	}
}

// completeJobs plays the Job controller: every Job succeeds.
func completeJobs(t *testing.T, env *controllertest.Env) {
	var jobs batchv1.JobList
	if err := env.API.List(context.Background(), &jobs); err != nil {
		t.Fatal(err)
	}
	for i := range jobs.Items {
		j := &jobs.Items[i]
		if len(j.Status.Conditions) == 0 {
			j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
			if err := env.API.Status().Update(context.Background(), j); err != nil {
				t.Fatal(err)
			}
		}
	}
}
