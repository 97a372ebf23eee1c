package job_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/job"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
)

// measured is the run after n measurements of metric "check", the status
// retaining the last keep of them (each naming its Job).
func measured(n, keep int) *rampv1.AnalysisRun {
	r := run.DeepCopy()
	res := rampv1.MetricResult{Name: "check", Count: int32(n)}
	for i := n - keep + 1; i <= n; i++ {
		res.Measurements = append(res.Measurements, rampv1.Measurement{Phase: rampv1.AnalysisPhaseSuccessful,
			Metadata: map[string]string{"job-name": fmt.Sprintf("uid.check.%d", i)}})
	}
	r.Status.MetricResults = []rampv1.MetricResult{res}
	return r
}

// labelled is an owned Job of measurement i of metric, labelled as the
// provider labels its Jobs.
func labelled(metric string, i int) *batchv1.Job {
	j := owned(fmt.Sprintf("uid.%s.%d", metric, i), batchv1.JobStatus{})
	j.Labels = map[string]string{rampv1.AnalysisRunNameKey: "run", rampv1.AnalysisRunMetricNameKey: metric}
	return j
}

// TestGarbageCollect: starting measurement 13 of a metric whose status
// retains measurements 10-12 deletes the metric's older Jobs (1-9), oldest
// first and at most job.MaxDeletesPerPass a pass (1-5, then 6-9), each
// with its UID as precondition; the retained ones, another metric's, and a
// Job with the run's labels that another run controls stay.
func TestGarbageCollect(t *testing.T) {
	var objs []client.Object
	for i := 1; i <= 12; i++ {
		objs = append(objs, labelled("check", i))
	}
	other := labelled("other", 1)
	squatter := foreign("ns", "uid.check.0", &otherRun)
	squatter.Labels = map[string]string{rampv1.AnalysisRunNameKey: "run", rampv1.AnalysisRunMetricNameKey: "check"}
	env := controllertest.New(t, nil, append(objs, other, squatter)...)
	var c calls
	p := job.New(c.client(env.API), nil)
	r := measured(12, 3)
	for pass, want := range [][]int{{1, 2, 3, 4, 5}, {6, 7, 8, 9}} {
		mark := len(c.all())
		if _, err := p.Measure(context.Background(), provider.Request{Run: r, Metric: metric("check")}); err != nil {
			t.Fatal(err)
		}
		var deleted []string
		for _, call := range c.all()[mark:] {
			if strings.HasPrefix(call, "delete") {
				deleted = append(deleted, call)
			}
		}
		var expect []string
		for _, i := range want {
			expect = append(expect, fmt.Sprintf("delete ns/uid.check.%d uid=job-uid.check.%d", i, i))
		}
		if !slices.Equal(deleted, expect) {
			t.Errorf("pass %d deleted %v, want %v", pass, deleted, expect)
		}
	}
	for _, name := range []string{"uid.check.10", "uid.check.11", "uid.check.12", "uid.check.13", "uid.other.1", "uid.check.0"} {
		if err := env.API.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: name}, &batchv1.Job{}); err != nil {
			t.Errorf("%s: %v, want kept", name, err)
		}
	}
}
