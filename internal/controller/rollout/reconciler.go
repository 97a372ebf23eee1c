// Package rollout reconciles Rollouts: it reads the Rollout and the objects it
// owns from the informer cache, asks internal/plan for the desired state and
// writes the difference (ReplicaSets, Services, one status patch).
//
// The foundation only observes Rollouts; the canary and blue-green strategies
// plug their phases into Reconcile.
package rollout

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// Reconciler reconciles Rollout objects.
type Reconciler struct {
	Client client.Client
}

// +kubebuilder:rbac:groups=argoproj.io,resources=rollouts,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=argoproj.io,resources=rollouts/status,verbs=update;patch
// +kubebuilder:rbac:groups=argoproj.io,resources=rollouts/scale,verbs=get;update;patch
// +kubebuilder:rbac:groups=argoproj.io,resources=analysisruns;experiments,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=argoproj.io,resources=analysisruns/status;experiments/status,verbs=update;patch
// +kubebuilder:rbac:groups=argoproj.io,resources=analysistemplates;clusteranalysistemplates,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=replicasets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups="";events.k8s.io,resources=events,verbs=create;patch

// Reconcile observes one Rollout. Strategy phases are added by later work.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var ro rampv1.Rollout
	if err := r.Client.Get(ctx, req.NamespacedName, &ro); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	log.FromContext(ctx).V(1).Info("observed rollout", "generation", ro.Generation)
	return ctrl.Result{}, nil
}

// SetupWithManager registers the reconciler and its watches.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&rampv1.Rollout{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		Complete(r)
}
