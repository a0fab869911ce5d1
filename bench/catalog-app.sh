#!/usr/bin/env bash
# The listener app against a 100,000-track library: the time from opening
# its home page, and its search page, to the first result shown in
# headless Chromium, and from typing a word on the search page to its
# results. Target: under 1 s on the 2-core machine (the server, Chromium and
# this script share it).
#
# The library is made the honest way, through the product's own import
# path: the same synthetic untagged WAV files as bench/catalog.sh
# (bench/catalog-library.py: 2,000 artists, 10,000 albums, names from the
# paths), scanned by `svc catalog scan`, which reads, decodes and analyses
# every file and builds the full-text indexes exactly as for a real
# library. Only the audio is unrealistic (0.1 s tones), which affects the
# scan's time, not the pages measured here. A listener is made with
# `svc catalog user create`; the app signs in through its consent page as a
# person would, then each page is reloaded RUNS times (after one warm-up)
# with its tokens kept in the tab.
#
# Usage: bench/catalog-app.sh [N]   (default 100000)
#        RUNS=n (default 5); SVC_BIN=path/to/svc uses that binary instead
#        of a release build (do not publish its numbers as release ones);
#        SVC_BENCH_KEEP=1 keeps the data directory (catalog.db);
#        SVC_BENCH_DATA=dir reuses a kept one (from this script or
#        bench/catalog.sh) without scanning again
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CACHE="${SVC_TEST_CACHE:-$HOME/.cache/svc-test}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/svc-target}"
N="${1:-100000}"
modules="${BROWSER_MODULES:-$CACHE/browser}/catalog"
chromium="${CHROMIUM:-/usr/bin/chromium}"
packages="$ROOT/crates/catalog-http/tests/browser/package.json"
mkdir -p "$CACHE/bench" "$modules"
[ -x "$chromium" ] || { echo "Chromium is not installed at $chromium (apt-get install chromium)"; exit 1; }
if ! cmp -s "$packages" "$modules/package.json" || [ ! -d "$modules/node_modules/playwright-core" ]; then
  cp "$packages" "$modules/package.json"
  (cd "$modules" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
fi

if [ -n "${SVC_BIN:-}" ]; then
  svc="$SVC_BIN"
  echo "measuring $svc (SVC_BIN): not the release build this script builds"
else
  cargo build --release --locked -p svc -q
  svc="$CARGO_TARGET_DIR/release/svc"
fi
library="$CACHE/bench/catalog-library-$N"
data="${SVC_BENCH_DATA:-$(mktemp -d)}"
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  if [ -n "${SVC_BENCH_KEEP:-}${SVC_BENCH_DATA:-}" ]; then echo "data kept in $data"; else rm -rf "$data"; fi
}
trap cleanup EXIT

if [ -z "${SVC_BENCH_DATA:-}" ]; then
  if [ ! -f "$library/.complete" ]; then
    echo "writing a synthetic library of $N tracks to $library"
    rm -rf "$library"
    python3 "$ROOT/bench/catalog-library.py" "$library" "$N"
  fi
  echo "scanning $N files with svc catalog scan"
  start=$(date +%s)
  "$svc" --data-dir "$data" catalog scan "$library" >/dev/null 2>"$data/scan.err" || { tail -n 5 "$data/scan.err"; exit 1; }
  echo "scanned in $(( $(date +%s) - start )) s"
fi

user="$("$svc" --json --data-dir "$data" catalog user create --name "bench-$$")"
field() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p" | head -n 1; }
"$svc" --json --data-dir "$data" serve catalog --catalog-listen 127.0.0.1:0 --no-demo \
  >"$data/serve.out" 2>"$data/serve.err" &
server=$!
for _ in $(seq 1 300); do grep -q '"service":"catalog"' "$data/serve.out" 2>/dev/null && break; sleep 0.1; done
url="$(grep '"service":"catalog"' "$data/serve.out" | field url)"
[ -n "$url" ] || { cat "$data/serve.err"; echo "the catalog did not start"; exit 1; }
BROWSER_MODULES="$modules" CHROMIUM="$chromium" RUNS="${RUNS:-5}" node "$ROOT/bench/catalog-app.mjs" \
  "$url" "$(echo "$user" | field username)" "$(echo "$user" | field password)"
