// Package view turns Ramp objects into display models (pure, no I/O) shared
// by the CLI and any dashboard, so both show a rollout the same way.
//
// It owns what a rollout looks like to a person: the summary, the tree of
// revisions, ReplicaSets, pods and AnalysisRuns, the list rows, and their
// text rendering; the words of a simulated update (`ramp plan`), the
// forecast of what remains of an update and what each action would do now
// (from the planner's simulation, plan.Simulate, and internal/action), the
// traffic routing and the HPAs' figures. It must not import a Kubernetes
// client, controller-runtime or internal/controller, and it never reads the
// clock: callers pass now.
package view
