package controller

import (
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/ramp-rollouts/ramp/internal/controller/rollout"
)

// Options configure the controllers.
type Options struct {
	// MaxConcurrentReconciles per controller; 0 means the default (10).
	MaxConcurrentReconciles int
}

// Setup registers every controller with the manager.
func Setup(mgr ctrl.Manager, o Options) error {
	if o.MaxConcurrentReconciles == 0 {
		o.MaxConcurrentReconciles = 10
	}
	r := &rollout.Reconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("rollouts-controller"), Clock: clock.RealClock{}}
	return r.SetupWithManager(mgr, o.MaxConcurrentReconciles)
}
