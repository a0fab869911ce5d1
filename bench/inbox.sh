#!/usr/bin/env bash
# Captures per second into one webhook inbox that verifies a Stripe
# signature on every request (HMAC-SHA256 over the raw body, the timestamp
# checked), with SQLite, the default store: wrk on loopback posts a 1 KB
# signed event for DURATION seconds over CONNECTIONS connections, then the
# script counts what was stored. Prints requests per second, p50 and p99,
# and the stored count against the 2xx count (they must be equal).
# Target (issue 27): over 5,000 captures a second on 2 cores.
#
# Usage: bench/inbox.sh [DURATION] [CONNECTIONS]   (SVC_BIN=path uses that
#        binary instead of a release build)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/svc-target}"
DURATION="${1:-10}"
CONNECTIONS="${2:-16}"
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
command -v wrk >/dev/null || { echo "installing wrk (Debian package)"; as_root apt-get install -y -q wrk >/dev/null; }
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
secret="whsec_bench_secret"
id="$(curl -sf -H "Authorization: Bearer $token" -H 'content-type: application/json' \
  -d "{\"name\":\"bench\",\"verification\":{\"scheme\":\"stripe\",\"secret\":\"$secret\"}}" "$base/api/v1/inboxes" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')"
# A 1 KB event, signed once as Stripe signs (the timestamp stays within the
# 300 s tolerance for the run).
python3 - "$secret" "$data/wrk.lua" <<'PY'
import hashlib, hmac, json, sys, time
secret, out = sys.argv[1], sys.argv[2]
body = json.dumps({"id": "evt_bench", "type": "charge.succeeded", "data": {"object": {"description": "x" * 900}}})
ts = int(time.time())
sig = hmac.new(secret.encode(), f"{ts}.{body}".encode(), hashlib.sha256).hexdigest()
with open(out, "w") as f:
    f.write('wrk.method = "POST"\n')
    f.write(f"wrk.body = {json.dumps(body)}\n")
    f.write('wrk.headers["Content-Type"] = "application/json"\n')
    f.write(f'wrk.headers["Stripe-Signature"] = "t={ts},v1={sig}"\n')
PY
pin=()
if [ "$(nproc)" -ge 2 ]; then pin=(taskset -c "$(( $(nproc) - 1 ))"); fi
printf '== %d s, %d connections, one inbox verifying a Stripe signature, SQLite\n' "$DURATION" "$CONNECTIONS"
"${pin[@]}" wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$data/wrk.lua" "$base/i/$id" | tee "$data/wrk.txt" \
  | grep -E "Requests/sec|50%|99%|Non-2xx|requests in"
stored="$(python3 - "$data/hub.db" "$id" <<'PY'
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
print(db.execute("SELECT COUNT(*) FROM inbox_captures WHERE inbox_id = ?", (sys.argv[2],)).fetchone()[0])
PY
)"
total="$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' "$data/wrk.txt")"
non2xx="$(sed -n 's/^ *Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' "$data/wrk.txt")"
printf 'stored %s captures of %s requests (%s refused or failed)\n' "$stored" "$total" "${non2xx:-0}"
echo "(target: over 5,000 captures a second on 2 cores)"
