// Package view turns Ramp objects into display models (pure, no I/O) shared
// by the CLI and any dashboard, so both show a rollout the same way.
//
// It owns what a rollout looks like to a person: the summary, the tree of
// revisions, ReplicaSets, pods and AnalysisRuns, the list rows, and their
// text rendering. It must not import a Kubernetes client, controller-runtime
// or internal/controller, and it never reads the clock: callers pass now.
package view
