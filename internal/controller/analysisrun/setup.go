package analysisrun

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/source"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/metrics"
)

// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete

// SetupWithManager registers the reconciler: AnalysisRuns, the Jobs they
// own (a finished Job wakes its run at once) and the measurements that end
// in the background (each queues its run). The measurements still running
// are cancelled when the manager stops.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	r.events = make(chan event.GenericEvent, 1024)
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		<-ctx.Done()
		r.flights.shutdown()
		return nil
	})); err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&rampv1.AnalysisRun{}).
		Owns(&batchv1.Job{}).
		WatchesRawSource(source.Channel(r.events, &handler.EnqueueRequestForObject{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(metrics.AnalysisRuns.Instrument(r, mgr.GetClient(), func() client.Object { return &rampv1.AnalysisRun{} }))
}
