#!/usr/bin/env bash
# make lint (also run by make test): go vet, staticcheck and golangci-lint
# (.golangci.yml: the default linters plus errorlint, importas and depguard)
# over the main module, its e2e and conformance suites included, and over the
# test/cluster and test/install modules. staticcheck and golangci-lint are built from Go modules
# at the versions pinned in hack/tools/go.mod (`go tool -modfile`, cached by
# the go command after the first build). test/upstream is not linted: it only
# builds Argo Rollouts' own code, the conformance oracle.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tool=(go tool -modfile="$root/hack/tools/go.mod")
tags=e2e,conformance

step() { # name, command...: run it and say how long it took
  local name=$1 t0=$SECONDS
  shift
  "$@"
  echo "lint: $name took $((SECONDS - t0))s" >&2
}

for mod in . test/cluster test/install; do
  (
    cd "$mod"
    step "go vet ($mod)" go vet -tags "$tags" ./...
    step "staticcheck ($mod)" "${tool[@]}" staticcheck -tags "$tags" ./...
    step "golangci-lint ($mod)" "${tool[@]}" golangci-lint run --config "$root/.golangci.yml" ./...
  )
done
