#!/usr/bin/env bash
# make test: linters (hack/lint.sh) and unit tests, then the end-to-end suite on its own local control
# plane (.ramp-test, ports 17400+), stopped at the end unless RAMP_KEEP_CLUSTER=1.
# RAMP_TEST_STATE / RAMP_TEST_PORT_BASE move it (e.g. to run two checkouts at once).
# Installs Debian's prometheus, graphite-carbon, graphite-web, influxdb and chromium first if missing
# (as root; their daemons are not started: the e2e tests start their own).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

# The analysis e2e tests run real servers (they start and stop their own on
# free loopback ports): Prometheus, Graphite (carbon-cache and graphite-web),
# InfluxDB 1.x. Fresh CI machines get Debian's packages (hack/debian.sh).
# shellcheck source=hack/debian.sh
source hack/debian.sh
ensure_debian prometheus prometheus
ensure_debian carbon-cache graphite-carbon graphite-web
ensure_debian graphite-manage graphite-web
ensure_debian influxd influxdb
# The dashboard's e2e tests drive a real headless browser (test/e2e/browser_test.go).
ensure_debian chromium chromium
prometheus=$(command -v prometheus)

echo "== generated code" >&2
hack/verify-generated.sh

echo "== linters (hack/lint.sh)" >&2
hack/lint.sh

echo "== the dashboard's web page and the binaries (make build)" >&2
make build
echo "== unit tests" >&2
go test -count=1 ./...
(cd test/cluster && go test -count=1 ./pki/... ./proc/...)
# The Helm chart and the Dockerfile (own module: Helm's library stays out of go.mod).
(cd test/install && go test -count=1 ./...)

echo "== fuzzing: a short run of each target (hack/fuzz.sh, about a minute)" >&2
hack/fuzz.sh

echo "== end-to-end tests on the local control plane" >&2
export RAMP_STATE=${RAMP_TEST_STATE:-.ramp-test} RAMP_PORT_BASE=${RAMP_TEST_PORT_BASE:-17400}
case $RAMP_STATE in /*) ;; *) RAMP_STATE=$PWD/$RAMP_STATE ;; esac # absolute for the tests' env
export RAMP_HPA_SYNC=2s RAMP_START_CONTROLLER=0
if [ "${RAMP_KEEP_CLUSTER:-0}" != 1 ]; then
  trap 'bin/ramp-cluster down --state "$RAMP_STATE/cluster"' EXIT
fi
hack/up.sh
# A measurement, not an assertion: how long a second `up` on a running plane takes.
t0=$(date +%s%N); hack/up.sh 2>/dev/null
echo "measured: second up on a running control plane took $(( ($(date +%s%N) - t0) / 1000000 )) ms" >&2
echo "== the installs on the control plane: kustomize and the chart (dry run), the namespaced chart's RBAC (for real)" >&2
(cd test/install && RAMP_E2E_KUBECONFIG=$RAMP_STATE/kubeconfig RAMP_KUBECTL=$RAMP_STATE/bin/kubectl \
  RAMP_CONTROLLER_BIN=$PWD/../../bin/ramp-controller \
  go test -count=1 -run 'TestApplyDryRun|TestNamespacedChartRunsController' ./... >&2)
RAMP_E2E_KUBECONFIG=$RAMP_STATE/kubeconfig \
RAMP_KUBECTL=$RAMP_STATE/bin/kubectl \
RAMP_CONTROLLER_BIN=$PWD/bin/ramp-controller \
RAMP_CLI_BIN=$PWD/bin/ramp \
RAMP_PROMETHEUS=$prometheus \
  go test -tags e2e -count=1 -parallel 8 -timeout 20m ./test/e2e/... "$@"

echo "== benchmarks (figures, not assertions; BenchmarkChaos and BenchmarkDashboard small: make chaos and make bench run them full size)" >&2
RAMP_E2E_KUBECONFIG=$RAMP_STATE/kubeconfig \
RAMP_KUBECTL=$RAMP_STATE/bin/kubectl \
RAMP_CONTROLLER_BIN=$PWD/bin/ramp-controller \
RAMP_CLI_BIN=$PWD/bin/ramp \
RAMP_CLUSTER_BIN=$PWD/bin/ramp-cluster \
RAMP_PROMETHEUS=$prometheus \
  go test -tags e2e -count=1 -run '^$' -bench . -benchtime 1x -timeout 10m ./test/e2e/...
echo "== conformance: the CI subset, under Ramp and under upstream Argo Rollouts v1.9.1" >&2
# Ramp's side reuses this control plane; the oracle gets its own (stopped at the end).
RAMP_CONF_SUBSET=ci RAMP_CONF_RAMP_STATE=$RAMP_STATE RAMP_CONF_RAMP_PORT_BASE=$RAMP_PORT_BASE \
  hack/conformance.sh -parallel 4
echo "make test finished in $((SECONDS - start))s" >&2
