// Package controller wires Ramp's reconcilers into a controller-runtime
// manager. Each kind has its own sub-package (rollout, analysisrun,
// experiment) whose reconciler reads the world from the informer cache, calls
// the pure planning code in internal/plan and writes only the difference.
//
// This package must not hold planning logic itself.
package controller
