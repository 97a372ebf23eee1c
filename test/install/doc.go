// Package install checks what ships Ramp to a cluster, outside the
// controller's module so that Helm's library stays out of its go.mod: the
// Helm chart (charts/ramp) rendered with Helm's own engine and compared with
// the kustomize install (config/), and the Dockerfile's build context, user
// and entrypoint. With RAMP_E2E_KUBECONFIG and RAMP_KUBECTL set (hack/test.sh
// sets them), both installs are also applied to the local control plane
// with a server-side dry run, and the namespace-scoped chart's RBAC for real,
// under which the controller (RAMP_CONTROLLER_BIN) must become ready. It
// also checks hack/debian.sh, which installs the e2e servers on a fresh CI
// machine, with a fake apt-get.
package install
