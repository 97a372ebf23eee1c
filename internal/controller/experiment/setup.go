package experiment

import (
	appsv1 "k8s.io/api/apps/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/metrics"
)

// SetupWithManager registers the reconciler: Experiments, and the
// ReplicaSets and AnalysisRuns they own (a ReplicaSet becoming available or
// a run ending wakes its Experiment at once).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&rampv1.Experiment{}).
		Owns(&appsv1.ReplicaSet{}).
		Owns(&rampv1.AnalysisRun{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(metrics.Experiments.Instrument(r, mgr.GetClient(), func() client.Object { return &rampv1.Experiment{} }))
}
