#!/usr/bin/env bash
# make conformance: the differential harness (test/conformance). Every
# scenario runs under Ramp and under upstream Argo Rollouts v1.9.1 (the
# oracle, built from its Go module by hack/build-upstream.sh), each on its own
# local control plane, and the observed trajectories are compared.
#   RAMP_CONF_RAMP_STATE / RAMP_CONF_RAMP_PORT_BASE          Ramp's plane (default .ramp-conf/ramp, 18400)
#   RAMP_CONF_UPSTREAM_STATE / RAMP_CONF_UPSTREAM_PORT_BASE  the oracle's plane (default .ramp-conf/upstream, 18500)
#   RAMP_CONF_SUBSET=ci   only the scenarios marked for CI (what make test runs)
#   RAMP_KEEP_CLUSTER=1   leave both planes running afterwards
# Extra arguments go to go test (e.g. -run 'TestConformance/canary-1-50' -v).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
ramp_state=$(abs "${RAMP_CONF_RAMP_STATE:-.ramp-conf/ramp}")
up_state=$(abs "${RAMP_CONF_UPSTREAM_STATE:-.ramp-conf/upstream}")

upstream_bin=$(hack/build-upstream.sh | tail -1)
upstream_mod=$(cd test/upstream && go list -m -f '{{.Dir}}' github.com/argoproj/argo-rollouts)
crds="$upstream_mod/manifests/crds/rollout-crd.yaml $upstream_mod/manifests/crds/analysis-run-crd.yaml
  $upstream_mod/manifests/crds/analysis-template-crd.yaml $upstream_mod/manifests/crds/cluster-analysis-template-crd.yaml
  $upstream_mod/manifests/crds/experiment-crd.yaml"

if [ "${RAMP_KEEP_CLUSTER:-0}" != 1 ]; then
  trap 'bin/ramp-cluster down --state "$up_state/cluster" >/dev/null 2>&1 || true
        [ -n "${RAMP_CONF_RAMP_STATE:-}" ] || bin/ramp-cluster down --state "$ramp_state/cluster" >/dev/null 2>&1 || true' EXIT
fi
echo "== conformance: Ramp's control plane ($ramp_state)" >&2
RAMP_STATE=$ramp_state RAMP_PORT_BASE=${RAMP_CONF_RAMP_PORT_BASE:-18400} RAMP_START_CONTROLLER=0 hack/up.sh
echo "== conformance: the oracle's control plane with upstream's CRDs ($up_state)" >&2
RAMP_STATE=$up_state RAMP_PORT_BASE=${RAMP_CONF_UPSTREAM_PORT_BASE:-18500} RAMP_START_CONTROLLER=0 \
  RAMP_CRDS="$crds" hack/up.sh

# a controller left running by an interrupted run would hold the plane's
# lease (or act beside the new one): none may survive into this run
pkill -f -- "--kubeconfig ($ramp_state|$up_state)/kubeconfig" 2>/dev/null || true

RAMP_CONF_RAMP_KUBECONFIG=$ramp_state/kubeconfig \
RAMP_CONF_UPSTREAM_KUBECONFIG=$up_state/kubeconfig \
RAMP_CONF_KUBECTL=$ramp_state/bin/kubectl \
RAMP_CONF_RAMP_CONTROLLER=$PWD/bin/ramp-controller \
RAMP_CONF_UPSTREAM_CONTROLLER=$upstream_bin/rollouts-controller \
RAMP_CONF_PLUGIN=$upstream_bin/kubectl-argo-rollouts \
RAMP_CONF_LOGS=$(abs .ramp-conf/logs) \
RAMP_CONF_UPSTREAM_MODULE=$upstream_mod \
  go test -tags conformance -count=1 -timeout 60m ./test/conformance/... "$@"
echo "conformance finished in $((SECONDS - start))s" >&2
