#!/usr/bin/env bash
# make bench: every benchmark at its full size on a control plane of its own (.ramp-bench, ports
# 18800+, 25 kwok nodes), then the fleet curve; stopped at the end unless RAMP_KEEP_CLUSTER=1. The
# benchmarks print figures (docs/performance.md) and fail only on correctness.
#   RAMP_BENCH_FLEET        Rollouts in BenchmarkFleet's first run (default 300)
#   RAMP_BENCH_CURVE        further fleet sizes, one run each (default "1000 3000"; docs/performance.md
#                           also has 10000, which takes about half an hour on 2 cores)
#   RAMP_BENCH_FLEET_FLAGS  extra controller flags for the fleet runs (e.g. "--kube-api-qps 40")
#   RAMP_BENCH_DASHBOARD, RAMP_BENCH_DASHBOARD_BROWSERS
#                           BenchmarkDashboard's Rollouts and pages (default 1000 and 20)
set -euo pipefail
cd "$(dirname "$0")/.."
export RAMP_STATE=${RAMP_BENCH_STATE:-$PWD/.ramp-bench} RAMP_PORT_BASE=${RAMP_BENCH_PORT_BASE:-18800}
export RAMP_START_CONTROLLER=0 RAMP_NODES=${RAMP_NODES:-25}
if [ "${RAMP_KEEP_CLUSTER:-0}" != 1 ]; then
  trap 'bin/ramp-cluster down --state "$RAMP_STATE/cluster"' EXIT
fi
make build >/dev/null
hack/up.sh
prometheus=$(command -v prometheus || true)
run() {
  RAMP_E2E_KUBECONFIG=$RAMP_STATE/kubeconfig \
  RAMP_KUBECTL=$RAMP_STATE/bin/kubectl \
  RAMP_CONTROLLER_BIN=$PWD/bin/ramp-controller \
  RAMP_CLI_BIN=$PWD/bin/ramp \
  RAMP_CLUSTER_BIN=$PWD/bin/ramp-cluster \
  RAMP_PROMETHEUS=$prometheus \
    go test -tags e2e -count=1 -run '^$' -benchtime 1x -timeout 120m ./test/e2e/... "$@"
}
# BenchmarkChaos has its own target (make chaos).
RAMP_BENCH_FOREIGN=${RAMP_BENCH_FOREIGN:-2000} RAMP_BENCH_FLEET=${RAMP_BENCH_FLEET:-300} \
RAMP_BENCH_DASHBOARD=${RAMP_BENCH_DASHBOARD:-1000} RAMP_BENCH_DASHBOARD_BROWSERS=${RAMP_BENCH_DASHBOARD_BROWSERS:-20} \
  run -bench '^Benchmark([^C]|C[^h])'
for n in ${RAMP_BENCH_CURVE:-1000 3000}; do
  echo "== fleet of $n" >&2
  RAMP_BENCH_FLEET=$n run -bench '^BenchmarkFleet$'
done
