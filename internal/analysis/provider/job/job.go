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
// it (terminate: the measurement ends Successful, as upstream).
func (p *Provider) Measure(ctx context.Context, req provider.Request) (provider.Result, error) {
	spec := req.Metric.Provider.Job
	if spec == nil {
		return provider.Result{}, fmt.Errorf("job provider called for a metric without provider.job")
	}
	if req.InFlight == nil {
		return p.start(ctx, req)
	}
	key := client.ObjectKey{Namespace: req.InFlight.Metadata[rampv1.JobNamespaceMetadataKey], Name: req.InFlight.Metadata[rampv1.JobNameMetadataKey]}
	if key.Name == "" {
		return provider.Result{}, fmt.Errorf("in-flight measurement has no %s metadata", rampv1.JobNameMetadataKey)
	}
	meta := map[string]string{rampv1.JobNameMetadataKey: key.Name, rampv1.JobNamespaceMetadataKey: key.Namespace}
	if req.Terminate {
		job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
		err := p.Client.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground))
		if client.IgnoreNotFound(err) != nil {
			return provider.Result{}, fmt.Errorf("delete job %s: %w", key.Name, err)
		}
		return provider.Result{Phase: rampv1.AnalysisPhaseSuccessful, Message: rampv1.AnalysisMessageMetricTerminated, Metadata: meta}, nil
	}
	job := &batchv1.Job{}
	err := p.Client.Get(ctx, key, job)
	if apierrors.IsNotFound(err) && p.Live != nil {
		err = p.Live.Get(ctx, key, job)
	}
	if err != nil {
		return provider.Result{}, fmt.Errorf("get job %s: %w", key.Name, err)
	}
	return provider.Result{Phase: verdict(job), Metadata: meta, Message: message(job)}, nil
}

func (p *Provider) start(ctx context.Context, req provider.Request) (provider.Result, error) {
	run, spec := req.Run, req.Metric.Provider.Job
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   run.Namespace,
			Name:        Name(run, req.Metric.Name),
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
	if err != nil && !apierrors.IsAlreadyExists(err) { // exists: a pass whose status write lost a race created it
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
