#!/usr/bin/env bash
# Starts (idempotently) the local control plane, installs the CRDs and, unless
# RAMP_START_CONTROLLER=0, (re)starts the controller in the background.
#   RAMP_STATE       state directory            (default .ramp-dev)
#   RAMP_PORT_BASE   first of 12 loopback ports (default 16400)
#   RAMP_HPA_SYNC    HPA controller sync period (default 15s)
#   RAMP_NODES       kwok nodes, 1,000 pods each (default 1; the fleet
#                    curves in docs/performance.md use 25)
#   RAMP_CRDS        the argoproj.io CRD files or directories to install
#                    (default config/crd/bases/; the conformance harness
#                    passes upstream's CRDs for the oracle's control plane)
#   RAMP_LOG_LEVEL   the controller's --log-level (default info; debug logs every write)
set -euo pipefail
cd "$(dirname "$0")/.."
state=${RAMP_STATE:-.ramp-dev}
base=${RAMP_PORT_BASE:-16400}
start=$SECONDS

clusterbin=$(hack/build-cluster.sh)
mkdir -p "$state/bin" bin
ln -sfn "$clusterbin/kubectl" "$state/bin/kubectl"
kubectl="$state/bin/kubectl --kubeconfig $state/kubeconfig"
(cd test/cluster && go build -o ../../bin/ramp-cluster ./cmd/ramp-cluster)
go build -o bin/ramp-controller ./cmd/ramp-controller

bin/ramp-cluster up --bin "$clusterbin" --state "$state/cluster" --port-base "$base" \
  --hpa-sync-period "${RAMP_HPA_SYNC:-15s}" --nodes "${RAMP_NODES:-1}"
cp "$state/cluster/kubeconfig" "$state/kubeconfig"

for f in ${RAMP_CRDS:-config/crd/bases/}; do
  $kubectl apply --server-side --force-conflicts -f "$f" >/dev/null
done
# The traffic routers' CRDs, as each router's definition names them
# (internal/traffic/<name>/definition.go), from their projects' Go modules.
go build -o bin/routers ./hack/routers
bin/routers crds | $kubectl apply --server-side --force-conflicts -f - >/dev/null
crds="crd/rollouts.argoproj.io crd/analysisruns.argoproj.io crd/analysistemplates.argoproj.io
  crd/clusteranalysistemplates.argoproj.io crd/experiments.argoproj.io
  $(bin/routers crd-names | tr '\n' ' ')"
# A just-created CRD has no status yet, which kubectl wait reports as an error: retry.
for _ in $(seq 100); do
  $kubectl wait --for=condition=Established --timeout=30s $crds >/dev/null 2>&1 && break
  sleep 0.2
done
$kubectl wait --for=condition=Established --timeout=20s $crds >/dev/null
echo "CRDs installed" >&2

if [ "${RAMP_START_CONTROLLER:-1}" != 0 ]; then
  bin/ramp-cluster stop --state "$state/cluster" --name ramp-controller
  probe=$((base + 11))
  bin/ramp-cluster start --state "$state/cluster" --name ramp-controller -- \
    "$PWD/bin/ramp-controller" --kubeconfig "$PWD/$state/kubeconfig" \
    --leader-election-namespace default \
    --metrics-bind-address "127.0.0.1:$((base + 10))" \
    --health-probe-bind-address "127.0.0.1:$probe" \
    --log-level "${RAMP_LOG_LEVEL:-info}"
  bin/ramp-cluster wait-http --url "http://127.0.0.1:$probe/readyz" --timeout 60s || {
    echo "ramp-controller is not ready; log: $state/cluster/logs/ramp-controller.log" >&2; exit 1; }
  echo "ramp-controller ready (log: $state/cluster/logs/ramp-controller.log)" >&2
fi
echo "up in $((SECONDS - start))s; kubeconfig: $state/kubeconfig; kubectl: $state/bin/kubectl" >&2
