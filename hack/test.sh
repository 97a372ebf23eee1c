#!/usr/bin/env bash
# make test: unit tests, then the end-to-end suite on its own local control
# plane (.ramp-test, ports 17400+), stopped at the end unless RAMP_KEEP_CLUSTER=1.
# RAMP_TEST_STATE / RAMP_TEST_PORT_BASE move it (e.g. to run two checkouts at once).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

echo "== generated code" >&2
hack/verify-generated.sh

echo "== unit tests" >&2
go test -count=1 ./...
(cd test/cluster && go test -count=1 ./pki/... ./proc/...)

echo "== end-to-end tests on the local control plane" >&2
export RAMP_STATE=${RAMP_TEST_STATE:-.ramp-test} RAMP_PORT_BASE=${RAMP_TEST_PORT_BASE:-17400}
export RAMP_HPA_SYNC=2s RAMP_START_CONTROLLER=0
if [ "${RAMP_KEEP_CLUSTER:-0}" != 1 ]; then
  trap 'bin/ramp-cluster down --state "$RAMP_STATE/cluster"' EXIT
fi
hack/up.sh
# A measurement, not an assertion: how long a second `up` on a running plane takes.
t0=$(date +%s%N); hack/up.sh 2>/dev/null
echo "measured: second up on a running control plane took $(( ($(date +%s%N) - t0) / 1000000 )) ms" >&2
go build -o bin/ramp ./cmd/ramp
RAMP_E2E_KUBECONFIG=$PWD/$RAMP_STATE/kubeconfig \
RAMP_KUBECTL=$PWD/$RAMP_STATE/bin/kubectl \
RAMP_CONTROLLER_BIN=$PWD/bin/ramp-controller \
RAMP_CLI_BIN=$PWD/bin/ramp \
  go test -tags e2e -count=1 -parallel 8 -timeout 20m ./test/e2e/... "$@"

echo "== benchmarks (figures, not assertions)" >&2
RAMP_E2E_KUBECONFIG=$PWD/$RAMP_STATE/kubeconfig \
RAMP_KUBECTL=$PWD/$RAMP_STATE/bin/kubectl \
RAMP_CONTROLLER_BIN=$PWD/bin/ramp-controller \
  go test -tags e2e -count=1 -run '^$' -bench . -benchtime 1x -timeout 10m ./test/e2e/...
echo "make test finished in $((SECONDS - start))s" >&2
