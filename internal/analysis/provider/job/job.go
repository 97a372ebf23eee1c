// Package job is the "job" metric provider: a measurement runs a Kubernetes
// Job from the metric's template, owned by the AnalysisRun; the Job's
// success or failure is the measurement's verdict (no conditions).
package job

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// Provider runs Jobs. Reader should be the informer cache (the controller
// watches Jobs it owns, so a finished Job wakes the run); Live is used only
// when the cache has not seen a Job that was just created.
type Provider struct {
	Client client.Client
	Live   client.Reader
}

// New returns the job provider.
func New(c client.Client, live client.Reader) *Provider { return &Provider{Client: c, Live: live} }

// Measure starts a Job (new measurement), looks at it (resume), or deletes
// it (terminate: the measurement ends Successful, as upstream). It acts only
// on Jobs in the run's own namespace that the run controls: the namespace a
// measurement's stored metadata names is ignored (status is writable by
// anyone who may patch the run), and a Job of the expected name that the run
// does not control is an Error naming it.
func (p *Provider) Measure(ctx context.Context, req provider.Request) (provider.Result, error) {
	spec := req.Metric.Provider.Job
	if spec == nil {
		return provider.Result{}, fmt.Errorf("job provider called for a metric without provider.job")
	}
	if req.InFlight == nil {
		return p.start(ctx, req)
	}
	key := client.ObjectKey{Namespace: req.Run.Namespace, Name: req.InFlight.Metadata[rampv1.JobNameMetadataKey]}
	if key.Name == "" {
		return provider.Result{}, fmt.Errorf("in-flight measurement has no %s metadata", rampv1.JobNameMetadataKey)
	}
	meta := map[string]string{rampv1.JobNameMetadataKey: key.Name, rampv1.JobNamespaceMetadataKey: key.Namespace}
	job, err := p.get(ctx, key)
	switch {
	case req.Terminate && apierrors.IsNotFound(err):
		return terminated(meta), nil
	case err != nil:
		return provider.Result{}, fmt.Errorf("get job %s: %w", key.Name, err)
	case !controlledBy(job, req.Run):
		return provider.Result{}, notOurs(job, req.Run)
	case req.Terminate:
		if err := p.delete(ctx, job); err != nil {
			return provider.Result{}, err
		}
		return terminated(meta), nil
	}
	return provider.Result{Phase: verdict(job), Metadata: meta, Message: message(job)}, nil
}

func terminated(meta map[string]string) provider.Result {
	return provider.Result{Phase: rampv1.AnalysisPhaseSuccessful, Message: rampv1.AnalysisMessageMetricTerminated, Metadata: meta}
}

// get reads a Job from the cache, then live when the cache has not seen it
// (just created, or a Job without the run label the cache selects on).
func (p *Provider) get(ctx context.Context, key client.ObjectKey) (*batchv1.Job, error) {
	job := &batchv1.Job{}
	err := p.Client.Get(ctx, key, job)
	if apierrors.IsNotFound(err) && p.Live != nil {
		err = p.Live.Get(ctx, key, job)
	}
	return job, err
}

// delete removes a Job the run controls, only if it is still that Job (a
// UID precondition: a Job of the same name made since is left alone). Gone
// already is fine.
func (p *Provider) delete(ctx context.Context, job *batchv1.Job) error {
	uid := job.UID
	err := p.Client.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground), client.Preconditions{UID: &uid})
	if client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("delete job %s: %w", job.Name, err)
	}
	return nil
}

// controlledBy reports whether run is job's controller (by UID).
func controlledBy(job *batchv1.Job, run *rampv1.AnalysisRun) bool {
	ref := metav1.GetControllerOf(job)
	return ref != nil && ref.UID == run.UID
}

// notOurs is the error of a Job the measurement expected to own.
func notOurs(job *batchv1.Job, run *rampv1.AnalysisRun) error {
	why := "it has no controller"
	if ref := metav1.GetControllerOf(job); ref != nil {
		why = fmt.Sprintf("its controller is %s %s (uid %s)", ref.Kind, ref.Name, ref.UID)
	}
	return fmt.Errorf("job %s/%s is not controlled by AnalysisRun %s (uid %s): %s; not used", job.Namespace, job.Name, run.Name, run.UID, why)
}

func (p *Provider) start(ctx context.Context, req provider.Request) (provider.Result, error) {
	run, spec := req.Run, req.Metric.Provider.Job
	name := Name(run, req.Metric.Name)
	if err := p.collect(ctx, run, req.Metric.Name, name); err != nil {
		return provider.Result{}, err
	}
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   run.Namespace,
			Name:        name,
			Labels:      maps.Clone(spec.Metadata.Labels),
			Annotations: maps.Clone(spec.Metadata.Annotations),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(run,
				rampv1.GroupVersion.WithKind("AnalysisRun"))},
		},
		Spec: *spec.Spec.DeepCopy(),
	}
	if job.Labels == nil {
		job.Labels = map[string]string{}
	}
	job.Labels[rampv1.AnalysisRunNameKey], job.Labels[rampv1.AnalysisRunMetricNameKey] = run.Name, labelValue(req.Metric.Name)
	err := p.Client.Create(ctx, job)
	if apierrors.IsAlreadyExists(err) { // ours if a pass whose status write lost a race created it
		existing, getErr := p.get(ctx, client.ObjectKeyFromObject(job))
		switch {
		case getErr != nil:
			return provider.Result{}, fmt.Errorf("create job %s: it exists, and reading it failed: %w", job.Name, getErr)
		case !controlledBy(existing, run):
			return provider.Result{}, notOurs(existing, run)
		}
		err = nil
	}
	if err != nil {
		return provider.Result{}, fmt.Errorf("create job %s: %w", job.Name, err)
	}
	return provider.Result{Phase: rampv1.AnalysisPhaseRunning,
		Metadata: map[string]string{rampv1.JobNameMetadataKey: job.Name, rampv1.JobNamespaceMetadataKey: job.Namespace}}, nil
}

// Name is the Job of the next measurement of metric in run:
// <run-uid>.<metric>.<n>, n counting the metric's measurements from 1. Names
// longer than 63 characters (Job names become pod label values) use a hash
// of the metric name.
func Name(run *rampv1.AnalysisRun, metric string) string {
	n := int32(1)
	for _, r := range run.Status.MetricResults {
		if r.Name == metric {
			n += r.Count + r.Error
		}
	}
	name := fmt.Sprintf("%s.%s.%d", run.UID, metric, n)
	if len(name) <= 63 {
		return name
	}
	return fmt.Sprintf("%s.%s.%d", run.UID, hash(metric)[:8], n)
}

func labelValue(s string) string {
	if len(s) <= 63 {
		return s
	}
	return hash(s)[:16]
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// verdict is the measurement phase of a Job.
func verdict(job *batchv1.Job) rampv1.AnalysisPhase {
	for _, c := range job.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			return rampv1.AnalysisPhaseSuccessful
		case batchv1.JobFailed:
			return rampv1.AnalysisPhaseFailed
		}
	}
	return rampv1.AnalysisPhaseRunning
}

func message(job *batchv1.Job) string {
	for _, c := range job.Status.Conditions {
		if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
			return fmt.Sprintf("job %s failed: %s", job.Name, c.Message)
		}
	}
	return ""
}
