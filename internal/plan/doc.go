// Package plan is Ramp's pure planning code: from a Rollout's spec and status,
// the observed ReplicaSets, pods and services, and the current time, it
// computes the desired state (replica counts, selector switches, status,
// conditions) and the exact time of the next requeue.
//
// It must not import a Kubernetes client, controller-runtime or anything that
// does I/O; time comes in as an argument. That keeps every decision table- and
// golden-testable. The strategy work (canary, blue-green, HPA accounting) adds
// its planners here.
package plan
