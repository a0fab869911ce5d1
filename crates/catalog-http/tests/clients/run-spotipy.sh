#!/usr/bin/env bash
# Starts `svc serve catalog` on a free loopback port with a fresh data dir,
# registers an app and a user, opens the catalog's web player in headless
# Chromium as that user (web_player.mjs: the device the player calls
# command, whose <audio> must really play), and runs spotipy_smoke.py
# against it all.
# Usage: crates/catalog-http/tests/clients/run-spotipy.sh   (from the repository root)
# Uses CARGO_TARGET_DIR (default target) and the project's ignored .venv.
# The browser part reuses the courses browser stage's installation:
# Chromium (CHROMIUM, default /usr/bin/chromium) and playwright-core under
# BROWSER_MODULES (default ~/.cache/svc-test/browser), installed from the
# courses stage's package.json when missing (Chromium with apt-get, as root
# or through sudo, as that stage does). Without Chromium, Node.js or npm the
# player calls that need a device are skipped, and the run says so.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
venv="${SPOTIPY_VENV:-$root/.venv/catalog-clients}"
modules="${BROWSER_MODULES:-$HOME/.cache/svc-test/browser}"
chromium="${CHROMIUM:-/usr/bin/chromium}"
cargo build --quiet -p svc
svc="$target/debug/svc"
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
if ! "$venv/bin/python" -c "import spotipy" 2>/dev/null; then
  "$venv/bin/pip" install -q --disable-pip-version-check "spotipy==2.26.0"
fi
data="$(mktemp -d)"
pid=""
browser_pid=""
trap '[ -n "$browser_pid" ] && kill "$browser_pid" 2>/dev/null; [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$data"' EXIT
"$svc" --json --data-dir "$data" serve catalog --catalog-listen 127.0.0.1:0 >"$data/serve.out" 2>"$data/serve.err" &
pid=$!
for _ in $(seq 1 300); do grep -q '"service":"catalog"' "$data/serve.out" 2>/dev/null && break; sleep 0.1; done
url="$(sed -n 's/.*"service":"catalog".*"url":"\([^"]*\)".*/\1/p' "$data/serve.out" | head -n 1)"
[ -n "$url" ] || { cat "$data/serve.err"; echo "the catalog did not start"; exit 1; }
app="$("$svc" --json --data-dir "$data" catalog app create --name smoke --redirect-uri http://127.0.0.1:8765/callback)"
user="$("$svc" --json --data-dir "$data" catalog user create --name smoke-user)"
field() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p"; }
username="$(echo "$user" | field username)"
password="$(echo "$user" | field password)"

# The web player device.
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo -n "$@"; else return 1; fi; }
if [ ! -x "$chromium" ]; then
  echo "installing Debian's chromium"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1 \
    || { as_root apt-get update -q >/dev/null 2>&1 && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1; } \
    || true
fi
device="none"
status="$data/web-player"
mkdir -p "$status"
if [ -x "$chromium" ] && command -v node >/dev/null && command -v npm >/dev/null; then
  if [ ! -d "$modules/node_modules/playwright-core" ]; then
    mkdir -p "$modules"
    cp "$root/crates/courses-http/tests/browser/package.json" "$modules/package.json"
    (cd "$modules" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
  fi
  BROWSER_MODULES="$modules" CHROMIUM="$chromium" timeout 300 node "$root/crates/catalog-http/tests/clients/web_player.mjs" \
    "$url" "$username" "$password" "$status" &
  browser_pid=$!
  for _ in $(seq 1 300); do [ -f "$status/ready" ] && break; kill -0 "$browser_pid" 2>/dev/null || break; sleep 0.1; done
  [ -f "$status/ready" ] || { echo "the web player did not register as a device"; exit 1; }
  device="web-player"
else
  echo "skipping the web player device: Chromium, Node.js or npm is not installed here"
fi

"$venv/bin/python" "$root/crates/catalog-http/tests/clients/spotipy_smoke.py" "$url" \
  "$(echo "$app" | field client_id)" "$(echo "$app" | field client_secret)" "$username" "$password" "$device"
if [ -n "$browser_pid" ]; then
  touch "$status/done"
  wait "$browser_pid"
  browser_pid=""
fi
