// Package lint checks manifests offline, before they are applied: what the
// API server would reject for Ramp's kinds (unknown fields, wrong types), what this
// version of Ramp cannot run (plan.ValidateRollout, the controller's own
// checks), and pitfalls known from the field that apply cleanly but do not do
// what their author expects (an HPA that over-counts or cannot compute, a
// promotion nothing triggers, an Argo CD hook that never runs, a route the
// traffic router cannot express).
//
// It is pure: it takes the bytes of files and returns findings. It must not
// import a Kubernetes client or do I/O; reading files is the CLI's job.
package lint
