#!/usr/bin/env bash
# Side by side in one run: the time to show one named operation of GitHub's
# REST description ("Get a repository", GET /repos/{owner}/{repo}) in
# headless Chromium for our hosted docs, for Scalar's standalone reference
# (@scalar/api-reference) and for Redoc's standalone build (redoc), both
# installed from the npm registry and served locally; the JavaScript heap
# each page holds then; and the weights of our pages (HTML, CSS, JS: raw, and
# as the hub sends them gzip- and brotli-compressed).
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
mkdir -p "$modules"

packages="$ROOT/crates/hub-http/tests/browser/package.json"
if ! cmp -s "$packages" "$modules/package.json" || [ ! -d "$modules/node_modules/redoc" ]; then
  cp "$packages" "$modules/package.json"
  (cd "$modules" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
fi
[ -x "$chromium" ] || { echo "Chromium is not installed at $chromium (apt-get install chromium)"; exit 1; }

# shellcheck source=bench/docs-common.sh
source "$ROOT/bench/docs-common.sh"
# Published numbers are a release build's; say so when another is measured.
case "$svc" in
  */release/svc) echo "measuring the release build $svc" ;;
  *) echo "measuring $svc (SVC_BIN): not the release build this script builds; do not publish these numbers as release ones" ;;
esac
# The first page waits for the parse the push started; the benchmark
# measures pages of a prepared document, as a visitor meets them.
curl -sf -o /dev/null "$base/docs/github/bench/op/get-repos-owner-repo"

DOCS_MODULES="$modules" CHROMIUM="$chromium" RUNS="${RUNS:-3}" WEIGH_ALL="${WEIGH_ALL:-1}" node "$ROOT/bench/docs-peers.mjs" "$base" "$spec"
