package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// upstream's buckets for the three reconcile histograms, in seconds
var reconcileBuckets = []float64{0.01, 0.15, .25, .5, 1}

func histogram(name, help string) *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: reconcileBuckets}, nsName)
}

func counter(name, help string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, nsName)
}

// Kind is a controller whose passes are timed and whose errors are counted.
type Kind struct {
	duration *prometheus.HistogramVec
	errors   *prometheus.CounterVec
}

// The three controllers, as upstream names their families.
var (
	Rollouts     = Kind{histogram("rollout_reconcile", "Rollout reconciliation performance."), counter("rollout_reconcile_error", "Error occurring during the rollout")}
	AnalysisRuns = Kind{histogram("analysis_run_reconcile", "Analysis Run reconciliation performance."), counter("analysis_run_reconcile_error", "Error occurring during the analysis run")}
	Experiments  = Kind{histogram("experiment_reconcile", "Experiments reconciliation performance."), counter("experiment_reconcile_error", "Error occurring during the experiment")}
)

// Instrument times every pass of r and counts the passes that fail. A pass
// that finds the object gone (in cache, read through c as a newObj) drops
// its series instead.
func (k Kind) Instrument(r reconcile.Reconciler, c client.Reader, newObj func() client.Object) reconcile.Reconciler {
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		start := time.Now()
		res, err := r.Reconcile(ctx, req)
		if gone := c.Get(ctx, req.NamespacedName, newObj()); apierrors.IsNotFound(gone) {
			k.Forget(req.Namespace, req.Name)
			return res, err
		}
		k.duration.WithLabelValues(req.Namespace, req.Name).Observe(time.Since(start).Seconds())
		if err != nil {
			k.errors.WithLabelValues(req.Namespace, req.Name).Inc()
		}
		return res, err
	})
}

// Forget drops the series of an object that no longer exists, so that the
// endpoint does not grow with every Rollout ever created.
func (k Kind) Forget(namespace, name string) {
	l := prometheus.Labels{"namespace": namespace, "name": name}
	k.duration.Delete(l)
	k.errors.Delete(l)
	if k == Rollouts {
		eventsTotal.DeletePartialMatch(l)
	}
}

func (k Kind) collectors() []prometheus.Collector {
	return []prometheus.Collector{k.duration, k.errors}
}
