#!/usr/bin/env bash
# The dashboard's browser flow (see dashboard.mjs) against a hub whose mail
# goes to a real SMTP receiver: aiosmtpd from PyPI, storing what it gets in
# a maildir the script reads the verification link from. Screenshots are
# kept in $DOCS_ARTIFACTS/dashboard (default target/docs-browser/dashboard).
#
# Installs what it needs (Debian's chromium, playwright-core and axe-core
# from the pinned package.json, aiosmtpd into $SMTP_VENV); exits 0 with a
# "skipping" line when Chromium, Node.js, npm or Python cannot be had.
# Usage: crates/hub-http/tests/browser/run-dashboard.sh   (from the repository root)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
modules="${BROWSER_MODULES:-$HOME/.cache/svc-test/browser}/docs"
venv="${SMTP_VENV:-$HOME/.cache/svc-test/venv-smtp}"
chromium="${CHROMIUM:-/usr/bin/chromium}"
artifacts="${DOCS_ARTIFACTS:-$target/docs-browser}"
packages="$here/package.json"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo -n "$@"; else return 1; fi; }
if [ ! -x "$chromium" ]; then
  echo "installing Debian's chromium"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1 \
    || { as_root apt-get update -q >/dev/null 2>&1 && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1; } || true
fi
for tool in "$chromium" node npm python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "skipping the dashboard browser flow: $tool is not installed"
    exit 0
  fi
done
mkdir -p "$modules" "$artifacts"
if ! cmp -s "$packages" "$modules/package.json" || [ ! -d "$modules/node_modules/playwright-core" ]; then
  cp "$packages" "$modules/package.json"
  (cd "$modules" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
fi
if [ ! -x "$venv/bin/aiosmtpd" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'aiosmtpd==1.4.6'
fi

cargo build --quiet -p svc
svc="$target/debug/svc"
data="$(mktemp -d)"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$data"' EXIT

# A free port for the SMTP receiver.
smtp_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
# aiosmtpd makes the maildir (with tmp/, new/ and cur/) itself.
"$venv/bin/aiosmtpd" -n -l "127.0.0.1:$smtp_port" -c aiosmtpd.handlers.Mailbox "$data/maildir" >"$data/smtp.log" 2>&1 &
pids+=("$!")
for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$smtp_port") 2>/dev/null && break; sleep 0.1; done

# Probes may reach this machine (the flow monitors the hub's own mock).
export CRON_SECRET="dashboard-flow-cron-secret"
SVC_OUTBOUND_ALLOW=127.0.0.1 SVC_SMTP_URL="smtp://127.0.0.1:$smtp_port" "$svc" --json --data-dir "$data/hub" serve hub --no-demo \
  --hub-listen 127.0.0.1:0 >"$data/serve.out" 2>"$data/serve.err" &
pids+=("$!")
for _ in $(seq 1 300); do grep -q '"service":"hub"' "$data/serve.out" 2>/dev/null && break; sleep 0.1; done
url="$(sed -n 's/.*"service":"hub".*"url":"\([^"]*\)".*/\1/p' "$data/serve.out" | head -n 1)"
listen="$(sed -n 's/.*"service":"hub".*"listen":"\([^"]*\)".*/\1/p' "$data/serve.out" | head -n 1)"
[ -n "$listen" ] || { cat "$data/serve.out" "$data/serve.err"; echo "the hub did not start"; exit 1; }

# Two versions of a small description: the second adds an operation.
cp "$root/bench/petstore.yaml" "$data/petstore-1.yaml"
python3 - "$root/bench/petstore.yaml" "$data/petstore-2.yaml" <<'PY'
import sys
text = open(sys.argv[1]).read()
marker = "paths:\n"
extra = "  /health:\n    get:\n      operationId: health\n      summary: Report health\n      responses:\n        '200':\n          description: healthy\n"
open(sys.argv[2], "w").write(text.replace(marker, marker + extra, 1))
PY

status=0
SVC_BIN="$svc" SVC_DATA="$data/hub" DOCS_MODULES="$modules" CHROMIUM="$chromium" node "$here/dashboard.mjs" "http://$listen" "$artifacts" \
  "$data/maildir" "$data/petstore-1.yaml" "$data/petstore-2.yaml" || status=1
if [ "$status" != 0 ]; then
  echo "--- hub log (last lines)"; tail -n 30 "$data/serve.err"
  echo "--- smtp log"; tail -n 20 "$data/smtp.log"
fi
exit "$status"
