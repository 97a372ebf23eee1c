#!/usr/bin/env bash
# make chaos: BenchmarkChaos (test/e2e/chaos_bench_test.go) on a control plane of its own
# (.ramp-chaos, ports 18700+), stopped at the end unless RAMP_KEEP_CLUSTER=1. It prints figures and
# fails only on correctness (a pause ended early, a step skipped or repeated, not all Healthy).
#   RAMP_CHAOS_ROLLOUTS  Rollouts, half canary, half blue-green (default 100)
#   RAMP_CHAOS_KILLS     SIGKILLs of a controller replica, 1-10 s apart (default 30)
#   RAMP_CHAOS_FREEZE    how long the kube-apiserver is stopped (SIGSTOP) once (default 45s)
set -euo pipefail
cd "$(dirname "$0")/.."
export RAMP_STATE=${RAMP_CHAOS_STATE:-$PWD/.ramp-chaos} RAMP_PORT_BASE=${RAMP_CHAOS_PORT_BASE:-18700}
export RAMP_HPA_SYNC=2s RAMP_START_CONTROLLER=0
export RAMP_CHAOS_ROLLOUTS=${RAMP_CHAOS_ROLLOUTS:-100} RAMP_CHAOS_KILLS=${RAMP_CHAOS_KILLS:-30} \
  RAMP_CHAOS_FREEZE=${RAMP_CHAOS_FREEZE:-45s}
if [ "${RAMP_KEEP_CLUSTER:-0}" != 1 ]; then
  trap 'bin/ramp-cluster down --state "$RAMP_STATE/cluster"' EXIT
fi
hack/up.sh
RAMP_E2E_KUBECONFIG=$RAMP_STATE/kubeconfig \
RAMP_KUBECTL=$RAMP_STATE/bin/kubectl \
RAMP_CONTROLLER_BIN=$PWD/bin/ramp-controller \
RAMP_CLUSTER_BIN=$PWD/bin/ramp-cluster \
  go test -tags e2e -count=1 -run '^$' -bench '^BenchmarkChaos$' -benchtime 1x -timeout 60m ./test/e2e/... "$@"
