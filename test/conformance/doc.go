// Package conformance is the differential harness: every scenario (manifests
// plus a script of actions) runs under Ramp and under upstream Argo Rollouts
// v1.9.1, each on its own local control plane, and the trajectories of
// observations taken at every settled point are compared. Upstream's
// controller is the oracle: a difference is a bug in Ramp unless it is listed
// in improvements.go (and docs/conformance.md) with its reason.
//
// The tests carry the build tag "conformance" and run through
// hack/conformance.sh (make conformance; make test runs the CI subset). They
// only read and write the API servers through kubectl, the upstream plugin
// (its dashboard server too: dashboard_upstream_test.go) and a dynamic
// client, so both controllers are treated exactly alike. Two
// checks import Ramp's pure packages to compare them with upstream rather
// than to drive a scenario: plan_trajectory_test.go (ramp plan's rows
// against upstream's recorded trajectories) and lint_corpus_test.go
// (ramp lint against upstream's lint on upstream's manifests).
package conformance
