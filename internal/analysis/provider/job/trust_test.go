package job_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/job"
	"github.com/ramp-rollouts/ramp/internal/controller/controllertest"
)

// calls records every call a client makes ("get ns/name", "list ns",
// "delete ns/name uid=<precondition>") in front of c.
type calls struct {
	mu  sync.Mutex
	log []string
}

func (c *calls) add(s string) { c.mu.Lock(); c.log = append(c.log, s); c.mu.Unlock() }

func (c *calls) all() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.log...)
}

func (c *calls) client(in client.WithWatch) client.WithWatch {
	return interceptor.NewClient(in, interceptor.Funcs{
		Get: func(ctx context.Context, w client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			c.add("get " + key.String())
			return w.Get(ctx, key, obj, opts...)
		},
		List: func(ctx context.Context, w client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			lo := (&client.ListOptions{}).ApplyOptions(opts)
			c.add("list " + lo.Namespace)
			return w.List(ctx, list, opts...)
		},
		Delete: func(ctx context.Context, w client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			do := (&client.DeleteOptions{}).ApplyOptions(opts)
			uid := "<none>"
			if do.Preconditions != nil && do.Preconditions.UID != nil {
				uid = string(*do.Preconditions.UID)
			}
			c.add(fmt.Sprintf("delete %s/%s uid=%s", obj.GetNamespace(), obj.GetName(), uid))
			return w.Delete(ctx, obj, opts...)
		},
	})
}

// foreign is a Job named name in ns controlled by another owner (or none).
func foreign(ns, name string, controller *metav1.OwnerReference) *batchv1.Job {
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("foreign-" + name)}}
	if controller != nil {
		j.OwnerReferences = []metav1.OwnerReference{*controller}
	}
	return j
}

var otherRun = metav1.OwnerReference{APIVersion: "argoproj.io/v1alpha1", Kind: "AnalysisRun", Name: "run", UID: "not-uid", Controller: new(true)}

// TestOtherNamespaceIgnored: a measurement whose stored metadata names a
// Job in another namespace (status is writable by whoever may patch the
// run) makes no call on that namespace: resume and terminate look in the
// run's own namespace only, and the other namespace's Job is untouched.
func TestOtherNamespaceIgnored(t *testing.T) {
	victim := owned("j", batchv1.JobStatus{})
	victim.Namespace = "victim"
	env := controllertest.New(t, nil, victim, owned("j", batchv1.JobStatus{}))
	var c calls
	p := job.New(c.client(env.API), nil)
	in := &rampv1.Measurement{Metadata: map[string]string{"job-name": "j", "job-namespace": "victim"}}
	if res, err := p.Measure(context.Background(), provider.Request{Run: run, Metric: metric("check"), InFlight: in}); err != nil || res.Metadata["job-namespace"] != "ns" {
		t.Errorf("resume: %+v, %v; want the run's namespace", res, err)
	}
	if _, err := p.Measure(context.Background(), provider.Request{Run: run, Metric: metric("check"), InFlight: in, Terminate: true}); err != nil {
		t.Fatal(err)
	}
	for _, call := range c.all() {
		if strings.Contains(call, "victim") {
			t.Errorf("call %q on the namespace the metadata names", call)
		}
	}
	if err := env.API.Get(context.Background(), client.ObjectKeyFromObject(victim), &batchv1.Job{}); err != nil {
		t.Errorf("the other namespace's Job: %v, want untouched", err)
	}
	if err := env.API.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: "j"}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
		t.Errorf("the run's own Job: %v, want deleted", err)
	}
}

// TestForeignJobNotUsed: a Job of the expected name that the run does not
// control (another run's UID, or no controller) is never used: a new
// measurement, a resume and a terminate are errors naming the Job and
// why, and nothing is deleted.
func TestForeignJobNotUsed(t *testing.T) {
	for name, ctl := range map[string]*metav1.OwnerReference{"another run": &otherRun, "no controller": nil} {
		t.Run(name, func(t *testing.T) {
			env := controllertest.New(t, nil, foreign("ns", "uid.check.1", ctl))
			var c calls
			p := job.New(c.client(env.API), nil)
			_, err := p.Measure(context.Background(), provider.Request{Run: run, Metric: metric("check")})
			if err == nil || !strings.Contains(err.Error(), "job ns/uid.check.1 is not controlled by AnalysisRun run") {
				t.Errorf("start: %v, want an error naming the Job", err)
			}
			in := &rampv1.Measurement{Metadata: map[string]string{"job-name": "uid.check.1"}}
			for _, terminate := range []bool{false, true} {
				res, err := p.Measure(context.Background(), provider.Request{Run: run, Metric: metric("check"), InFlight: in, Terminate: terminate})
				if err == nil || !strings.Contains(err.Error(), "not controlled") {
					t.Errorf("terminate=%v: %+v, %v; want an error", terminate, res, err)
				}
			}
			for _, call := range c.all() {
				if strings.HasPrefix(call, "delete") {
					t.Errorf("%s: a foreign Job was deleted", call)
				}
			}
		})
	}
}

// TestDeleteUIDPrecondition: terminate deletes the Job with its UID as a
// precondition, so a Job of the same name made since is not deleted.
func TestDeleteUIDPrecondition(t *testing.T) {
	env := controllertest.New(t, nil, owned("j", batchv1.JobStatus{}))
	var c calls
	p := job.New(c.client(env.API), nil)
	in := &rampv1.Measurement{Metadata: map[string]string{"job-name": "j"}}
	if _, err := p.Measure(context.Background(), provider.Request{Run: run, Metric: metric("check"), InFlight: in, Terminate: true}); err != nil {
		t.Fatal(err)
	}
	want := "delete ns/j uid=job-j"
	if log := c.all(); !slices.Contains(log, want) {
		t.Errorf("calls %v, want %q", log, want)
	}
}
