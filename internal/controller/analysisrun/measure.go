package analysisrun

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// launch starts the due tasks in the background, each once its provider
// has a free slot, unless the metric already has a measurement in flight.
// When one ends with something to record, its result waits in r.flights and
// the run is queued: the next pass records it.
func (r *Reconciler) launch(ctx context.Context, run *rampv1.AnalysisRun, status *rampv1.AnalysisRunStatus, tasks []analysis.Task) {
	var todo []start
	for _, t := range tasks {
		k := flightKey{run.UID, t.Metric.Name}
		fctx, fl := r.flights.claim(k, client.ObjectKeyFromObject(run))
		if fl == nil {
			continue // in flight: its end wakes the run
		}
		todo = append(todo, start{ctx: log.IntoContext(fctx, log.FromContext(ctx)), key: k, fl: fl, task: t,
			in: inFlight(status, t), seq: seqOf(status, t.Metric.Name)})
	}
	if len(todo) == 0 {
		return
	}
	args, argErr := r.resolveArgs(ctx, run) // once, and only for measurements that start
	for _, s := range todo {
		log.FromContext(ctx).V(1).Info("starting measurement", "metric", s.task.Metric.Name, "resume", s.task.Resume, "terminate", s.task.Terminate)
		r.flights.wg.Add(1)
		go r.fly(run, s, args, argErr)
	}
}

// start is a measurement claimed in r.flights, about to start.
type start struct {
	ctx  context.Context
	key  flightKey
	fl   *flight
	task analysis.Task
	in   *rampv1.Measurement // the in-flight measurement it resumes, or nil
	seq  int32
}

// fly takes the measurement s (an Error when the run's arguments could not
// be resolved) and hands its result to r.flights, waking the run when
// there is something to record.
func (r *Reconciler) fly(run *rampv1.AnalysisRun, s start, args analysis.Args, argErr error) {
	defer r.flights.wg.Done()
	var m rampv1.Measurement
	if argErr != nil {
		m = failed(s.in, r.Clock.Now(), fmt.Sprintf("metric %q: %v", s.task.Metric.Name, argErr))
	} else {
		m = r.measureOne(s.ctx, run, s.task, s.in, args)
	}
	end := r.Clock.Now()
	if fin := m.FinishedAt; fin != nil && fin.Time.Before(end) {
		stamp := finishedAt(end) // the provider took long: finishedAt is never before the end
		m.FinishedAt = &stamp
	}
	analysis.TruncateMeasurement(&m) // after redaction (take)
	unchanged := s.in != nil && !m.Phase.Completed() && apiequality.Semantic.DeepEqual(m, *s.in)
	if r.flights.finish(s.key, s.fl, outcome{name: client.ObjectKeyFromObject(run), seq: s.seq, m: m, end: end}, !unchanged) {
		r.wake(run)
	}
}

// measureOne takes one measurement once its provider has a free slot.
func (r *Reconciler) measureOne(ctx context.Context, run *rampv1.AnalysisRun, t analysis.Task, in *rampv1.Measurement, args analysis.Args) rampv1.Measurement {
	slot := r.flights.slot(provider.Name(t.Metric.Provider), r.perProvider())
	select {
	case slot <- struct{}{}:
		defer func() { <-slot }()
	case <-ctx.Done():
		return failed(in, r.Clock.Now(), fmt.Sprintf("metric %q: measurement cancelled", t.Metric.Name))
	}
	return r.take(ctx, run, t, in, args, r.Clock.Now())
}

// wake queues run for a pass (the watch on r.events).
func (r *Reconciler) wake(run *rampv1.AnalysisRun) {
	if r.events == nil {
		return
	}
	ev := event.GenericEvent{Object: &rampv1.AnalysisRun{ObjectMeta: metav1.ObjectMeta{Namespace: run.Namespace, Name: run.Name}}}
	select {
	case r.events <- ev:
	case <-r.flights.base.Done(): // shutting down
	}
}

// collect records into status the finished measurements of run that wait
// in r.flights, and returns their sequence numbers (to ack once written).
// A result whose metric has moved on meanwhile (status was written by
// someone else, or the result was recorded by a pass whose patch we could
// not see) is stale and dropped.
func (r *Reconciler) collect(run *rampv1.AnalysisRun, spec rampv1.AnalysisRunSpec, status *rampv1.AnalysisRunStatus) map[string]int32 {
	results := r.flights.results(run.UID)
	seqs := make(map[string]int32, len(results))
	for metric, o := range results {
		seqs[metric] = o.seq
		if !slices.ContainsFunc(spec.Metrics, func(m rampv1.Metric) bool { return m.Name == metric }) || seqOf(status, metric) != o.seq {
			continue
		}
		analysis.Record(analysis.ResultFor(spec, status, metric), o.m, analysis.RetentionLimit(spec, metric))
		if fin := o.m.FinishedAt; fin != nil {
			r.finishes.record(run.UID, metric, *fin, o.end)
		}
	}
	return seqs
}

// seqOf is the number of completed measurements of metric (count and
// errors): a result started at one number is recorded only at that number.
func seqOf(status *rampv1.AnalysisRunStatus, metric string) int32 {
	for _, res := range status.MetricResults {
		if res.Name == metric {
			return res.Count + res.Error
		}
	}
	return 0
}

// take runs one task through its provider and judges the result. The
// provider's context ends after MaxProviderTimeout whatever the metric says.
func (r *Reconciler) take(ctx context.Context, run *rampv1.AnalysisRun, t analysis.Task, in *rampv1.Measurement, args analysis.Args, now time.Time) rampv1.Measurement {
	red := args.Redactor() // built once: every text below passes through it
	metric, err := analysis.Substitute(t.Metric, args)
	if err != nil {
		return failed(in, now, red.Redact(err.Error()))
	}
	p, err := r.Providers.Get(provider.Name(metric.Provider))
	if err != nil {
		return failed(in, now, fmt.Sprintf("metric %q: %v", metric.Name, err))
	}
	limit := r.providerTimeout()
	capped, cancel := context.WithTimeoutCause(ctx, limit, errProviderTimeout)
	defer cancel()
	res, err := p.Measure(capped, provider.Request{Run: run, Metric: metric, InFlight: in, Terminate: t.Terminate})
	if err != nil {
		if errors.Is(context.Cause(capped), errProviderTimeout) {
			return failed(in, now, fmt.Sprintf("metric %q: measurement exceeded the %s cap on provider timeouts (--max-provider-timeout)", metric.Name, limit))
		}
		return failed(in, now, red.Redact(fmt.Sprintf("metric %q: %v", metric.Name, err)))
	}
	m := started(in, now)
	m.Value, m.Message = red.Redact(res.Display), red.Redact(res.Message)
	m.Metadata = redactMetadata(red, res.Metadata)
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
			m.Phase, m.Message = rampv1.AnalysisPhaseError, red.Redact(err.Error())
		}
	default:
		m.Phase = res.Phase
	}
	finished := finishedAt(r.Clock.Now())
	m.FinishedAt, m.ResumeAt = &finished, nil
	return m
}

// errProviderTimeout is the cause of a measurement cut by MaxProviderTimeout.
var errProviderTimeout = errors.New("provider timeout cap reached")

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
			if r.SecretSelector != nil && !r.SecretSelector.Matches(labels.Set(s.Labels)) {
				return args, fmt.Errorf("argument %q: secret %q does not match the controller's --secret-label-selector", a.Name, ref.Name)
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

// redactMetadata is md with keys and values redacted (a provider or plugin
// may put a secret in either). Keys are taken in sorted order, so when two
// redact to the same key the result does not depend on map order: the
// first keeps it, the next ones get "-2", "-3"... .
func redactMetadata(red *analysis.Redactor, md map[string]string) map[string]string {
	if md == nil {
		return nil
	}
	keys := slices.Sorted(maps.Keys(md))
	out := make(map[string]string, len(md))
	for _, k := range keys {
		rk := red.Redact(k)
		for i := 2; ; i++ {
			if _, taken := out[rk]; !taken {
				break
			}
			rk = fmt.Sprintf("%s-%d", red.Redact(k), i)
		}
		out[rk] = red.Redact(md[k])
	}
	return out
}
