#!/usr/bin/env bash
# The studio's browser flow (see studio.mjs) against a courses service whose
# mail is written to files in its data directory. Screenshots are kept in
# $DOCS_ARTIFACTS/studio (default target/docs-browser/studio).
#
# Installs what it needs (Debian's chromium and poppler-utils, playwright-core,
# axe-core and a web font from the pinned package.json into
# $BROWSER_MODULES/studio); exits 0 with a "skipping" line when Chromium,
# pdftotext, Node.js or npm cannot be had.
# Usage: crates/courses-http/tests/browser/studio/run-studio.sh   (from the repository root)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
modules="${BROWSER_MODULES:-$HOME/.cache/svc-test/browser}/studio"
chromium="${CHROMIUM:-/usr/bin/chromium}"
artifacts="${DOCS_ARTIFACTS:-$target/docs-browser}"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo -n "$@"; else return 1; fi; }
if [ ! -x "$chromium" ]; then
  echo "installing Debian's chromium"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1 \
    || { as_root apt-get update -q >/dev/null 2>&1 && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1; } || true
fi
if ! command -v pdftotext >/dev/null; then
  echo "installing Debian's poppler-utils (pdftotext, pdffonts)"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q poppler-utils >/dev/null 2>&1 \
    || { as_root apt-get update -q >/dev/null 2>&1 && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q poppler-utils >/dev/null 2>&1; } || true
fi
for tool in "$chromium" node npm pdftotext; do
  if ! command -v "$tool" >/dev/null; then
    echo "skipping the studio browser flow: $tool is not installed"
    exit 0
  fi
done
mkdir -p "$modules" "$artifacts"
if ! cmp -s "$here/package.json" "$modules/package.json" || [ ! -d "$modules/node_modules/playwright-core" ]; then
  cp "$here/package.json" "$modules/package.json"
  (cd "$modules" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
fi

cargo build --quiet -p svc
svc="$target/debug/svc"
data="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$data"' EXIT
# The webhook step's receiver listens on loopback, which the sender refuses
# unless allowed.
SVC_OUTBOUND_ALLOW=127.0.0.1/32 "$svc" --json --data-dir "$data" serve courses --no-demo --courses-listen 127.0.0.1:0 >"$data/serve.out" 2>"$data/serve.err" &
pid=$!
for _ in $(seq 1 300); do grep -q '"service":"courses"' "$data/serve.out" 2>/dev/null && break; sleep 0.1; done
url="$(sed -n 's/.*"service":"courses".*"url":"\([^"]*\)".*/\1/p' "$data/serve.out" | head -n 1)"
[ -n "$url" ] || { cat "$data/serve.err"; echo "the courses service did not start"; exit 1; }

status=0
SVC_BIN="$svc" SVC_DATA_DIR="$data" STUDIO_MODULES="$modules" CHROMIUM="$chromium" node "$here/studio.mjs" "$url" "$artifacts" "$data/mail" || status=1
if [ "$status" != 0 ]; then
  echo "--- courses log (last lines)"; tail -n 30 "$data/serve.err"
fi
exit "$status"
