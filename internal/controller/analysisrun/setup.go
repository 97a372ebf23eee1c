package analysisrun

import (
	batchv1 "k8s.io/api/batch/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/metrics"
)

// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete

// SetupWithManager registers the reconciler: AnalysisRuns and the Jobs they
// own (a finished Job wakes its run at once).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&rampv1.AnalysisRun{}).
		Owns(&batchv1.Job{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(metrics.AnalysisRuns.Instrument(r, mgr.GetClient(), func() client.Object { return &rampv1.AnalysisRun{} }))
}
