#!/usr/bin/env bash
# Builds the local control plane's binaries from Go modules into a cache
# directory keyed by their versions, so only the first run on a machine builds.
# Prints the cache directory on its last line of stdout.
set -euo pipefail

K8S_VERSION=v1.36.3
ETCD_VERSION=v3.6.8
KWOK_VERSION=v0.7.0
METRICS_SERVER_VERSION=v0.7.2

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${RAMP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ramp}
bin="$cache/cluster-bin/k8s-$K8S_VERSION-etcd-$ETCD_VERSION-kwok-$KWOK_VERSION-ms-$METRICS_SERVER_VERSION"
mkdir -p "$bin"

# build <name> <command...>: runs the command unless $bin/<name> exists,
# printing which component is building and the elapsed time every 30 s.
build() {
  local name=$1; shift
  if [ -x "$bin/$name" ]; then return 0; fi
  local start=$SECONDS
  echo "building $name (first run on this machine only)..." >&2
  "$@" >"$bin/.$name.log" 2>&1 &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -0 "$pid" 2>/dev/null && echo "  still building $name: $((SECONDS - start))s" >&2
  done
  if ! wait "$pid"; then
    echo "build of $name failed; log follows" >&2
    tail -50 "$bin/.$name.log" >&2
    return 1
  fi
  echo "built $name in $((SECONDS - start))s" >&2
}

cd "$root/test/cluster"
export CGO_ENABLED=0
build etcd sh -c "go build -o '$bin/etcd.tmp' ./cmd/etcd && mv '$bin/etcd.tmp' '$bin/etcd'"
for c in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
  build "$c" sh -c "go build -o '$bin/$c.tmp' k8s.io/kubernetes/cmd/$c && mv '$bin/$c.tmp' '$bin/$c'"
done
build kwok sh -c "GOBIN='$bin/.gobin' go install sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION && mv '$bin/.gobin/kwok' '$bin/kwok'"
build metrics-server sh -c "GOBIN='$bin/.gobin' go install sigs.k8s.io/metrics-server/cmd/metrics-server@$METRICS_SERVER_VERSION && mv '$bin/.gobin/metrics-server' '$bin/metrics-server'"
echo "$bin"
