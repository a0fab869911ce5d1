#!/usr/bin/env bash
# The browser checks of the courses service (see run.mjs): SCORM 1.2 and 2004
# exports in the scorm-again runtime, and the learner player end to end, in
# headless Chromium.
#
# Installs what it needs, idempotently: Debian's chromium and poppler-utils
# (pdftotext) with apt-get when missing (as root, or through sudo), and the
# npm packages pinned in package.json into $BROWSER_MODULES (default
# ~/.cache/svc-test/browser). Exits 0 with a "skipping" line when Chromium,
# Node.js or npm cannot be had, so a machine without them still runs the rest.
# Usage: crates/courses-http/tests/browser/run-browser.sh   (from the repository root)
# Uses CARGO_TARGET_DIR (default target).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
modules="${BROWSER_MODULES:-$HOME/.cache/svc-test/browser}"
chromium="${CHROMIUM:-/usr/bin/chromium}"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo -n "$@"; else return 1; fi; }
apt_install() {
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null 2>&1 \
    || { as_root apt-get update -q >/dev/null 2>&1 && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null 2>&1; }
}
missing=()
[ -x "$chromium" ] || missing+=(chromium)
command -v pdftotext >/dev/null || missing+=(poppler-utils)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing Debian's ${missing[*]}"
  apt_install "${missing[@]}" || true
fi
for tool in "$chromium" pdftotext node npm python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "skipping the browser checks: $tool is not installed and could not be installed here"
    exit 0
  fi
done

mkdir -p "$modules"
if ! cmp -s "$here/package.json" "$modules/package.json" || [ ! -d "$modules/node_modules/playwright-core" ] || [ ! -d "$modules/node_modules/scorm-again" ]; then
  cp "$here/package.json" "$modules/package.json"
  (cd "$modules" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
fi

cargo build --quiet -p svc
svc="$target/debug/svc"
data="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$data"' EXIT
# Webhooks may reach the checks' receiver on loopback.
SVC_OUTBOUND_ALLOW=127.0.0.1 "$svc" --json --data-dir "$data" serve courses --no-demo --courses-listen 127.0.0.1:0 >"$data/serve.out" 2>"$data/serve.err" &
pid=$!
for _ in $(seq 1 300); do grep -q '"service":"courses"' "$data/serve.out" 2>/dev/null && break; sleep 0.1; done
url="$(sed -n 's/.*"service":"courses".*"url":"\([^"]*\)".*/\1/p' "$data/serve.out" | head -n 1)"
[ -n "$url" ] || { cat "$data/serve.err"; echo "the courses service did not start"; exit 1; }
field() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p"; }
workspace="$("$svc" --json --data-dir "$data" courses workspace create --name browser --plan scale | field id)"
key="$("$svc" --json --data-dir "$data" courses key create --workspace "$workspace" | field key)"
read_only="$("$svc" --json --data-dir "$data" courses key create --workspace "$workspace" --read-only | field key)"
sandbox="$("$svc" --json --data-dir "$data" courses workspace create --name other --plan sandbox | field id)"
sandbox_key="$("$svc" --json --data-dir "$data" courses key create --workspace "$sandbox" | field key)"
BROWSER_MODULES="$modules" CHROMIUM="$chromium" timeout 300 node "$here/run.mjs" "$url" "$key" "$read_only" "$sandbox_key"
