#!/usr/bin/env bash
# The dashboard's web page: npm ci (the versions in web/package-lock.json),
# a type check (tsc), then esbuild bundles web/src into
# internal/dashboard/assets/, which go:embed puts in the binary. The bundle
# is not committed; without it the binary serves a placeholder page. Then
# the front end's unit tests (web/src/*.test.ts) under node --test.
# RAMP_SKIP_WEB=1 skips this (go build alone never needs npm).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${RAMP_SKIP_WEB:-0}" = 1 ]; then exit 0; fi
command -v npm >/dev/null || { echo "hack/web.sh: npm is not installed (apt-get install npm), or set RAMP_SKIP_WEB=1" >&2; exit 1; }
out=internal/dashboard/assets
cd web
npm ci --no-audit --no-fund --loglevel=error >&2
npx --no-install tsc -p .
npx --no-install esbuild src/main.ts --bundle --minify --target=es2022 \
  --outfile=../$out/app.js --log-level=warning
npx --no-install esbuild src/style.css --bundle --minify --outfile=../$out/app.css --log-level=warning
cp src/index.html ../$out/index.html
# The pure parts' tests (node's own runner; bundled to a scratch directory).
tests=$(mktemp -d)
trap 'rm -rf "$tests"' EXIT
for t in src/*.test.ts; do
  npx --no-install esbuild "$t" --bundle --platform=node --format=esm --outfile="$tests/$(basename "${t%.ts}").mjs" --log-level=warning
done
node --test --test-reporter=dot "$tests"/*.mjs >&2
