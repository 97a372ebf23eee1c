#!/usr/bin/env bash
# Fails if config/crd/bases or config/rbac/role.yaml differ from what
# controller-gen generates from the current markers (they are never hand-edited).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go tool controller-gen crd:generateEmbeddedObjectMeta=true,maxDescLen=0 paths=./api/... output:crd:dir="$tmp/crd"
go tool controller-gen rbac:roleName=ramp-controller paths="./internal/...;./cmd/..." output:rbac:dir="$tmp/rbac"
if ! diff -r "$tmp/crd" config/crd/bases >/dev/null || ! diff "$tmp/rbac/role.yaml" config/rbac/role.yaml >/dev/null; then
  echo "generated CRDs or RBAC are stale: run 'make generate' and commit the result" >&2
  diff -r "$tmp/crd" config/crd/bases | head -20 >&2 || true
  exit 1
fi
echo "generated CRDs and RBAC are up to date" >&2
