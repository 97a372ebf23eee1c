//go:build tools

// Package upstream pins Argo Rollouts v1.9.1, the conformance oracle: its
// controller and kubectl plugin are built from this module (never vendored,
// never copied) by hack/build-upstream.sh.
package upstream

import (
	_ "github.com/argoproj/argo-rollouts/cmd/kubectl-argo-rollouts"
	_ "github.com/argoproj/argo-rollouts/cmd/rollouts-controller"
)
