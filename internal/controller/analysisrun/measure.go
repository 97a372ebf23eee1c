package analysisrun

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// measure runs the due tasks (in parallel: one slow provider does not delay
// the others) and records their measurements into status.
func (r *Reconciler) measure(ctx context.Context, run *rampv1.AnalysisRun, status *rampv1.AnalysisRunStatus, tasks []analysis.Task, now time.Time) {
	args, argErr := r.resolveArgs(ctx, run)
	results := make([]rampv1.Measurement, len(tasks))
	ends := make([]time.Time, len(tasks)) // when each measurement really finished
	var wg sync.WaitGroup
	for i, t := range tasks {
		in := inFlight(status, t)
		if argErr != nil {
			results[i], ends[i] = failed(in, now, fmt.Sprintf("metric %q: %v", t.Metric.Name, argErr)), now
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = r.take(ctx, run, t, in, args, now)
			ends[i] = r.Clock.Now()
			if fin := results[i].FinishedAt; fin != nil && fin.Time.Before(ends[i]) {
				stamp := finishedAt(ends[i]) // the provider took long: finishedAt is never before the end
				results[i].FinishedAt = &stamp
			}
		}()
	}
	wg.Wait()
	for i, t := range tasks {
		res := analysis.ResultFor(run.Spec, status, t.Metric.Name)
		analysis.Record(res, results[i], analysis.RetentionLimit(run.Spec, t.Metric.Name))
		if fin := results[i].FinishedAt; fin != nil {
			r.finishes.record(run.UID, t.Metric.Name, *fin, ends[i])
		}
	}
}

// take runs one task through its provider and judges the result.
func (r *Reconciler) take(ctx context.Context, run *rampv1.AnalysisRun, t analysis.Task, in *rampv1.Measurement, args analysis.Args, now time.Time) rampv1.Measurement {
	metric, err := analysis.Substitute(t.Metric, args)
	if err != nil {
		return failed(in, now, err.Error())
	}
	p, err := r.Providers.Get(provider.Name(metric.Provider))
	if err != nil {
		return failed(in, now, fmt.Sprintf("metric %q: %v", metric.Name, err))
	}
	res, err := p.Measure(ctx, provider.Request{Run: run, Metric: metric, InFlight: in, Terminate: t.Terminate})
	if err != nil {
		return failed(in, now, args.Redact(fmt.Sprintf("metric %q: %v", metric.Name, err)))
	}
	m := started(in, now)
	m.Value, m.Message, m.Metadata = args.Redact(res.Display), args.Redact(res.Message), args.RedactMap(res.Metadata)
	switch res.Phase {
	case rampv1.AnalysisPhaseRunning:
		m.Phase = rampv1.AnalysisPhaseRunning
		if !res.ResumeAt.IsZero() {
			at := metav1.NewTime(res.ResumeAt)
			m.ResumeAt = &at
		}
		return m
	case "":
		if m.Phase, err = r.Evaluator.Evaluate(metric, res.Value); err != nil {
			m.Phase, m.Message = rampv1.AnalysisPhaseError, args.Redact(err.Error())
		}
	default:
		m.Phase = res.Phase
	}
	finished := finishedAt(now)
	m.FinishedAt, m.ResumeAt = &finished, nil
	return m
}

// finishedAt stamps a completed measurement: now rounded up to a whole
// second. Status timestamps have second resolution and the next measurement
// is due one interval after finishedAt as stored; rounding down would let it
// run up to a second early. (startedAt is rounded down: the two bracket
// the measurement.)
func finishedAt(now time.Time) metav1.Time {
	if t := now.Truncate(time.Second); !t.Equal(now) {
		return metav1.NewTime(t.Add(time.Second))
	}
	return metav1.NewTime(now)
}

// inFlight is the metric's running measurement when the task resumes it.
func inFlight(status *rampv1.AnalysisRunStatus, t analysis.Task) *rampv1.Measurement {
	if !t.Resume {
		return nil
	}
	for _, res := range status.MetricResults {
		if res.Name == t.Metric.Name && len(res.Measurements) > 0 {
			m := res.Measurements[len(res.Measurements)-1].DeepCopy()
			return m
		}
	}
	return nil
}

// started is the measurement being taken: the in-flight one, or a new one
// started now.
func started(in *rampv1.Measurement, now time.Time) rampv1.Measurement {
	if in != nil {
		return *in.DeepCopy()
	}
	at := metaNow(now)
	return rampv1.Measurement{StartedAt: &at}
}

// failed is an Error measurement with msg.
func failed(in *rampv1.Measurement, now time.Time, msg string) rampv1.Measurement {
	m := started(in, now)
	at := finishedAt(now)
	m.Phase, m.Message, m.FinishedAt, m.ResumeAt = rampv1.AnalysisPhaseError, msg, &at, nil
	return m
}

// resolveArgs reads the run's argument values; Secret values are marked so
// that they are redacted from everything stored. An argument with neither a
// value nor a source stays unresolved (a metric that uses it errors).
func (r *Reconciler) resolveArgs(ctx context.Context, run *rampv1.AnalysisRun) (analysis.Args, error) {
	args := analysis.Args{Values: map[string]string{}, Secrets: map[string]bool{}}
	for _, a := range run.Spec.Args {
		switch {
		case a.Value != nil:
			args.Values[a.Name] = *a.Value
		case a.ValueFrom != nil && a.ValueFrom.SecretKeyRef != nil:
			ref := a.ValueFrom.SecretKeyRef
			var s corev1.Secret
			if err := r.Secrets.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: ref.Name}, &s); err != nil {
				return args, fmt.Errorf("argument %q: secret %q: %w", a.Name, ref.Name, err)
			}
			v, ok := s.Data[ref.Key]
			if !ok {
				return args, fmt.Errorf("argument %q: secret %q has no key %q", a.Name, ref.Name, ref.Key)
			}
			args.Values[a.Name], args.Secrets[a.Name] = string(v), true
		case a.ValueFrom != nil && a.ValueFrom.FieldRef != nil:
			return args, fmt.Errorf("argument %q: valueFrom.fieldRef %q is resolved by the run's creator (a Rollout), not in a run", a.Name, a.ValueFrom.FieldRef.FieldPath)
		}
	}
	return args, nil
}

func metaNow(now time.Time) metav1.Time { return metav1.NewTime(now) }

func orNow(t *metav1.Time, now metav1.Time) *metav1.Time {
	if t != nil {
		return t
	}
	return &now
}
