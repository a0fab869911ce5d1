#!/usr/bin/env bash
# The listener app's browser flow (see listener.mjs) against `svc serve
# catalog` on a free loopback port with a fresh data dir: the first start's
# demo library and demo listener (whose login the server prints) are what
# the flow uses; spotipy (listener_watch.py) watches beside it through an
# app registered with `svc catalog app create`. Screenshots are kept in
# $CATALOG_ARTIFACTS/listener (default target/catalog-browser/listener).
#
# Installs what it needs (Debian's chromium, playwright-core and axe-core
# from the pinned package.json under $BROWSER_MODULES/catalog, spotipy into
# $SPOTIPY_VENV); exits 0 with a "skipping" line when Chromium, Node.js,
# npm or Python cannot be had.
# Usage: crates/catalog-http/tests/browser/run-listener.sh   (from the repository root)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
modules="${BROWSER_MODULES:-$HOME/.cache/svc-test/browser}/catalog"
venv="${SPOTIPY_VENV:-$HOME/.cache/svc-test/venv-spotipy}"
chromium="${CHROMIUM:-/usr/bin/chromium}"
artifacts="${CATALOG_ARTIFACTS:-$target/catalog-browser}"
packages="$here/package.json"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo -n "$@"; else return 1; fi; }
if [ ! -x "$chromium" ]; then
  echo "installing Debian's chromium"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1 \
    || { as_root apt-get update -q >/dev/null 2>&1 && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1; } || true
fi
for tool in "$chromium" node npm python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "skipping the listener app's browser flow: $tool is not installed"
    exit 0
  fi
done
mkdir -p "$modules" "$artifacts"
if ! cmp -s "$packages" "$modules/package.json" || [ ! -d "$modules/node_modules/axe-core" ]; then
  cp "$packages" "$modules/package.json"
  (cd "$modules" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
fi
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
if ! "$venv/bin/python" -c "import spotipy" 2>/dev/null; then
  "$venv/bin/pip" install -q --disable-pip-version-check "spotipy==2.26.0"
fi

cargo build --quiet -p svc
svc="$target/debug/svc"
data="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$data"' EXIT
"$svc" --json --data-dir "$data" serve catalog --catalog-listen 127.0.0.1:0 >"$data/serve.out" 2>"$data/serve.err" &
pid=$!
for _ in $(seq 1 300); do grep -q '"catalog_demo_listener"' "$data/serve.out" 2>/dev/null && break; sleep 0.1; done
field() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p" | head -n 1; }
url="$(grep '"service":"catalog"' "$data/serve.out" | field url)"
listener="$(grep '"catalog_demo_listener"' "$data/serve.out" || true)"
[ -n "$url" ] && [ -n "$listener" ] || { cat "$data/serve.out" "$data/serve.err"; echo "the catalog did not start with its demo listener"; exit 1; }
app="$("$svc" --json --data-dir "$data" catalog app create --name watcher --redirect-uri http://127.0.0.1:8765/callback)"
username="$(echo "$listener" | field username)"
password="$(echo "$listener" | field password)"
# A folder for the administration page's scan: one song and one file no
# decoder reads.
mkdir -p "$data/more-music"
cp "$(find "$data/demo-library" -name '*.wav' | head -n 1)" "$data/more-music/song.wav"
printf 'not a flac file' >"$data/more-music/broken.flac"
SCAN_DIR="$data/more-music" BROWSER_MODULES="$modules" CHROMIUM="$chromium" timeout 300 node "$here/listener.mjs" "$url" "$username" "$password" "$artifacts" -- \
  "$venv/bin/python" "$here/listener_watch.py" "$url" "$(echo "$app" | field client_id)" "$username" "$password"
