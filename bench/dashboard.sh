#!/usr/bin/env bash
# Dashboard page times at scale: a hub with 1,000 projects and 10,000
# versions (pushed through the API), one account signed in through the
# sign-in form, then every dashboard page fetched repeatedly. Prints the
# median and p95 server time (time to first byte on loopback) and the page
# weight. Targets: under 20 ms per page and under 150 KB of HTML.
#
# Usage: bench/dashboard.sh   SVC_BIN=path uses that binary instead of a
#        release build; PROJECTS=n and VERSIONS=n change the scale.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/svc-target}"
svc="${SVC_BIN:-}"
if [ -z "$svc" ]; then
  cargo build --release --locked -p svc -q
  svc="$CARGO_TARGET_DIR/release/svc"
fi
data="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$data"' EXIT
password="bench passphrase for pages"
printf '%s' "$password" | "$svc" --data-dir "$data" hub user create --email bench@example.com --plan business --password-stdin >/dev/null
token="$("$svc" --json --data-dir "$data" hub token create --email bench@example.com --name bench | sed -n 's/.*"token":"\([^"]*\)".*/\1/p')"
RUST_LOG=warn "$svc" --json --data-dir "$data" serve hub --no-demo --hub-listen 127.0.0.1:0 >"$data/out" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q '"service":"hub"' "$data/out" 2>/dev/null && break; sleep 0.1; done
listen="$(sed -n 's/.*"service":"hub".*"listen":"\([^"]*\)".*/\1/p' "$data/out" | head -n 1)"
python3 "$ROOT/bench/dashboard.py" "$listen" "$token" "$password" "${PROJECTS:-1000}" "${VERSIONS:-10000}"
