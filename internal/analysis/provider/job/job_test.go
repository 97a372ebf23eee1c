package job_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/job"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
)

var run = &rampv1.AnalysisRun{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "run", UID: "uid"}}

// owned is a Job in ns the run controls.
func owned(name string, status batchv1.JobStatus) *batchv1.Job {
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("job-" + name),
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(run, rampv1.GroupVersion.WithKind("AnalysisRun"))}}, Status: status}
}

func metric(name string) rampv1.Metric {
	return rampv1.Metric{Name: name, Provider: rampv1.MetricProvider{Job: &rampv1.JobMetric{
		Metadata: rampv1.JobMetricMetadata{Labels: map[string]string{"team": "a"}, Annotations: map[string]string{"note": "x"}},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}}}}}
}

// TestStart: a new measurement creates the Job (named for the run's UID,
// the metric and the measurement's number; owned by the run; labelled with
// the run and metric and the template's own metadata) and is Running with
// the Job's name in its metadata. A Job of that name that exists already
// (a pass whose status write was lost) is taken; another create error is
// returned.
func TestStart(t *testing.T) {
	env := controllertest.New(t, nil)
	p := job.New(env.Client, nil)
	res, err := p.Measure(context.Background(), provider.Request{Run: run, Metric: metric("check")})
	if err != nil || res.Phase != rampv1.AnalysisPhaseRunning || res.Metadata["job-name"] != "uid.check.1" {
		t.Fatalf("start: %+v, %v", res, err)
	}
	j := &batchv1.Job{}
	if err := env.API.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: "uid.check.1"}, j); err != nil {
		t.Fatal(err)
	}
	if !metav1.IsControlledBy(j, run) || j.Labels[rampv1.AnalysisRunNameKey] != "run" || j.Labels[rampv1.AnalysisRunMetricNameKey] != "check" || j.Labels["team"] != "a" || j.Annotations["note"] != "x" {
		t.Errorf("Job metadata %+v, want owned by the run, its labels and the template's", j.ObjectMeta)
	}
	if res, err := p.Measure(context.Background(), provider.Request{Run: run, Metric: metric("check")}); err != nil || res.Phase != rampv1.AnalysisPhaseRunning {
		t.Errorf("existing Job: %+v, %v; want it taken", res, err)
	}
	env.FailAt(controllertest.Match{Verb: "create", Kind: "Job"}, 0, controllertest.Errors()["500"])
	if _, err := p.Measure(context.Background(), provider.Request{Run: run, Metric: metric("other")}); err == nil {
		t.Error("create error: none returned")
	}
	if _, err := p.Measure(context.Background(), provider.Request{Run: run, Metric: rampv1.Metric{Name: "x"}}); err == nil {
		t.Error("a metric without provider.job: no error")
	}
}

// TestResume: an in-flight measurement is the Job's verdict: Running until
// a Complete (Successful) or Failed (Failed, with the Job's message)
// condition. A Job the cache has not seen is read live; one gone, or
// metadata without the Job's name, is an error.
func TestResume(t *testing.T) {
	done := owned("done", batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}})
	failed := owned("failed", batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Message: "BackoffLimitExceeded"}}})
	running := owned("running", batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionFalse}}})
	cache := controllertest.New(t, nil, done, failed, running)
	live := controllertest.New(t, nil, owned("new", batchv1.JobStatus{}))
	p := job.New(cache.Client, live.Client)
	inFlight := func(name string) *rampv1.Measurement {
		return &rampv1.Measurement{Phase: rampv1.AnalysisPhaseRunning, Metadata: map[string]string{"job-name": name, "job-namespace": "ns"}}
	}
	for name, want := range map[string]rampv1.AnalysisPhase{"done": rampv1.AnalysisPhaseSuccessful, "failed": rampv1.AnalysisPhaseFailed,
		"running": rampv1.AnalysisPhaseRunning, "new": rampv1.AnalysisPhaseRunning} {
		res, err := p.Measure(context.Background(), provider.Request{Run: run, Metric: metric("check"), InFlight: inFlight(name)})
		if err != nil || res.Phase != want {
			t.Errorf("%s: %+v, %v; want %s", name, res, err, want)
		}
		if name == "failed" && !strings.Contains(res.Message, "BackoffLimitExceeded") {
			t.Errorf("failed: message %q, want the Job's", res.Message)
		}
	}
	if _, err := p.Measure(context.Background(), provider.Request{Run: run, Metric: metric("check"), InFlight: inFlight("gone")}); !apierrors.IsNotFound(errors.Unwrap(err)) {
		t.Errorf("gone: %v, want the NotFound", err)
	}
	if _, err := p.Measure(context.Background(), provider.Request{Run: run, Metric: metric("check"), InFlight: &rampv1.Measurement{}}); err == nil {
		t.Error("no job-name metadata: no error")
	}
}

// TestTerminate: terminating deletes the Job (gone already is fine) and
// ends the measurement Successful, as upstream; a delete error is returned.
func TestTerminate(t *testing.T) {
	env := controllertest.New(t, nil, owned("j", batchv1.JobStatus{}))
	p := job.New(env.Client, nil)
	req := provider.Request{Run: run, Metric: metric("check"), Terminate: true,
		InFlight: &rampv1.Measurement{Metadata: map[string]string{"job-name": "j", "job-namespace": "ns"}}}
	for range 2 { // the second finds it gone
		if res, err := p.Measure(context.Background(), req); err != nil || res.Phase != rampv1.AnalysisPhaseSuccessful {
			t.Fatalf("terminate: %+v, %v", res, err)
		}
	}
	if err := env.API.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: "j"}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
		t.Errorf("the Job is still there (%v)", err)
	}
	if err := env.API.Create(context.Background(), owned("j", batchv1.JobStatus{})); err != nil {
		t.Fatal(err)
	}
	env.FailAt(controllertest.Match{Verb: "delete", Kind: "Job"}, 0, controllertest.Errors()["timeout"])
	if _, err := p.Measure(context.Background(), req); err == nil {
		t.Error("delete error: none returned")
	}
}

// TestName: the measurement's number counts the metric's measurements and
// errors; a name past 63 characters (a pod label value) hashes the metric.
func TestName(t *testing.T) {
	r := run.DeepCopy()
	r.Status.MetricResults = []rampv1.MetricResult{{Name: "check", Count: 2, Error: 1}}
	if n := job.Name(r, "check"); n != "uid.check.4" {
		t.Errorf("Name = %s, want uid.check.4", n)
	}
	long := strings.Repeat("m", 80)
	n1, n2 := job.Name(r, long), job.Name(r, long+"x")
	if len(n1) > 63 || n1 == n2 || !strings.HasPrefix(n1, "uid.") {
		t.Errorf("long names %s, %s: want distinct, at most 63 characters", n1, n2)
	}
}
