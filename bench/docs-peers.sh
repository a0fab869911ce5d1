#!/usr/bin/env bash
# Side by side in one run: the time to show one named operation of GitHub's
# REST description ("Get a repository", GET /repos/{owner}/{repo}) in
# headless Chromium for our hosted docs, for Scalar's standalone reference
# (@scalar/api-reference) and for Redoc's standalone build (redoc), both
# installed from the npm registry and served locally; the JavaScript heap
# each page holds then; and the weights of our pages (HTML, CSS, JS, raw and
# gzip-compressed).
#
# Usage: bench/docs-peers.sh [SPEC_FILE]   (default: GitHub's
#        api.github.com.json, fetched as bench/docs.sh does). SVC_BIN=path
#        uses that binary instead of a release build; RUNS=n repeats (3).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CACHE="${SVC_TEST_CACHE:-$HOME/.cache/svc-test}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/svc-target}"
modules="${BROWSER_MODULES:-$CACHE/browser}/docs"
chromium="${CHROMIUM:-/usr/bin/chromium}"
mkdir -p "$CACHE/bench" "$modules"

spec="${1:-}"
if [ -z "$spec" ]; then
  spec="$CACHE/bench/api.github.com.json"
  if [ ! -f "$spec" ]; then
    echo "fetching @octokit/openapi from the npm registry"
    (cd "$CACHE/bench" && npm pack --silent @octokit/openapi@23.0.2 >/dev/null && tar -xzf octokit-openapi-23.0.2.tgz package/generated/api.github.com.json && mv package/generated/api.github.com.json . && rm -rf package octokit-openapi-23.0.2.tgz)
  fi
fi
packages="$ROOT/crates/hub-http/tests/browser/package.json"
if ! cmp -s "$packages" "$modules/package.json" || [ ! -d "$modules/node_modules/redoc" ]; then
  cp "$packages" "$modules/package.json"
  (cd "$modules" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
fi
[ -x "$chromium" ] || { echo "Chromium is not installed at $chromium (apt-get install chromium)"; exit 1; }

svc="${SVC_BIN:-}"
if [ -z "$svc" ]; then
  cargo build --release --locked -p svc -q
  svc="$CARGO_TARGET_DIR/release/svc"
fi
data="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$data"' EXIT
"$svc" --data-dir "$data" hub user create --email bench@example.com --plan business >/dev/null
token="$("$svc" --json --data-dir "$data" hub token create --email bench@example.com --name bench | sed -n 's/.*"token":"\([^"]*\)".*/\1/p')"
RUST_LOG=warn "$svc" --json --data-dir "$data" serve hub --no-demo --hub-listen 127.0.0.1:0 >"$data/out" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q '"service":"hub"' "$data/out" 2>/dev/null && break; sleep 0.1; done
base="http://$(sed -n 's/.*"service":"hub".*"listen":"\([^"]*\)".*/\1/p' "$data/out" | head -n 1)"
curl -sf -o /dev/null -H "Authorization: Bearer $token" -H 'content-type: application/json' -d '{"name":"GitHub","slug":"github","is_public":true}' "$base/api/v1/projects"
curl -sf -o /dev/null -H "Authorization: Bearer $token" --data-binary "@$spec" "$base/api/v1/projects/github/versions?label=bench"
# The first page waits for the parse the push started; the benchmark
# measures pages of a prepared document, as a visitor meets them.
curl -sf -o /dev/null "$base/docs/github/bench/op/get-repos-owner-repo"

DOCS_MODULES="$modules" CHROMIUM="$chromium" RUNS="${RUNS:-3}" WEIGH_ALL="${WEIGH_ALL:-1}" node "$ROOT/bench/docs-peers.mjs" "$base" "$spec"
