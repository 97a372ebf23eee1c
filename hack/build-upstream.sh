#!/usr/bin/env bash
# Builds the conformance oracle, Argo Rollouts v1.9.1's rollouts-controller and
# kubectl-argo-rollouts plugin, from its Go module (test/upstream pins it with
# upstream's own replace directives) into a cache directory keyed by the
# version, so only the first run on a machine builds (about 4 minutes of CPU).
# Prints the cache directory on its last line of stdout.
set -euo pipefail

ARGO_ROLLOUTS_VERSION=v1.9.1

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${RAMP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ramp}
bin="$cache/upstream/argo-rollouts-$ARGO_ROLLOUTS_VERSION"
mkdir -p "$bin"
cd "$root/test/upstream"
for c in rollouts-controller kubectl-argo-rollouts; do
  if [ -x "$bin/$c" ]; then continue; fi
  start=$SECONDS
  echo "building upstream $c $ARGO_ROLLOUTS_VERSION (first run on this machine only)..." >&2
  if ! CGO_ENABLED=0 go build -o "$bin/$c.tmp" "github.com/argoproj/argo-rollouts/cmd/$c" >"$bin/.$c.log" 2>&1; then
    echo "build of upstream $c failed; log follows" >&2
    tail -50 "$bin/.$c.log" >&2
    exit 1
  fi
  mv "$bin/$c.tmp" "$bin/$c"
  echo "built upstream $c in $((SECONDS - start))s" >&2
done
echo "$bin"
