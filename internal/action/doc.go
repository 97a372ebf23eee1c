// Package action builds the patches that change a Rollout on a person's
// behalf: promote, abort, retry, pause, resume, restart, undo and set image.
// The CLI (internal/cli) and the dashboard (internal/dashboard) both send
// what this package builds, so the two cannot drift apart, and the bodies
// are byte for byte those of the Argo Rollouts kubectl plugin (and Argo
// CD's Rollout actions), so every tool drives the same controller contract.
//
// It is pure: it reads the objects it is given and never calls the API, so
// it must not import a client, controller-runtime or net/http.
package action
