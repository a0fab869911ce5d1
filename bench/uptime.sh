#!/usr/bin/env bash
# One uptime round over 10,000 monitored operations against a local API:
# the round's time (target: under 60 s on 2 cores, well inside the 10-minute
# interval), probes per second, and the hub's resident memory before the
# round and at its peak.
#
# The local API is Python's threading HTTP server with keep-alive, answering
# every path with a small JSON object that fits the described schema. The
# operations are 10 projects of 1,000 GET operations each, pushed and turned
# on through the public API (one keep-alive connection), then the round is
# run by `POST /api/cron/uptime`. All probes go to one origin, so the
# per-origin limit (4 at a time) is what bounds the round: the worst case.
#
# Usage: bench/uptime.sh [OPERATIONS]   (default 10000; SVC_BIN=path uses
#        that binary instead of a release build)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/svc-target}"
total="${1:-10000}"
per_project=1000
projects=$(( (total + per_project - 1) / per_project ))
svc="${SVC_BIN:-}"
if [ -z "$svc" ]; then
  cargo build --release --locked -p svc -q
  svc="$CARGO_TARGET_DIR/release/svc"
fi
data="$(mktemp -d)"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$data"' EXIT

api_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
python3 - "$api_port" <<'PY' &
import http.server, sys
class Api(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body leave in two writes: without TCP_NODELAY, Nagle's
    # algorithm and the client's delayed ACK hold each answer for 40 ms.
    disable_nagle_algorithm = True
    def do_GET(self):
        body = b'{"id": 1, "name": "ok"}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Api).serve_forever()
PY
pids+=("$!")

export CRON_SECRET="bench-uptime-secret"
SVC_OUTBOUND_ALLOW=127.0.0.1 RUST_LOG=warn "$svc" --json --data-dir "$data/hub" serve hub --hub-listen 127.0.0.1:0 \
  >"$data/out" 2>"$data/err" &
pid=$!
pids+=("$pid")
for _ in $(seq 1 300); do grep -q '"service":"hub"' "$data/out" 2>/dev/null && break; sleep 0.1; done
base="http://$(sed -n 's/.*"service":"hub".*"listen":"\([^"]*\)".*/\1/p' "$data/out" | head -n 1)"
token="$(sed -n 's/.*"token":"\(svc_pat_[^"]*\)".*/\1/p' "$data/out" | head -n 1)"
[ -n "$token" ] || { cat "$data/err"; echo "the hub did not start"; exit 1; }
# The demo account is on Business: monitoring is on its plan.

echo "pushing $projects projects of $per_project operations and turning $total monitors on"
python3 - "$base" "$token" "$api_port" "$projects" "$per_project" "$total" <<'PY'
import http.client, json, sys, urllib.parse
base, token, port, projects, per, total = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
host = urllib.parse.urlparse(base).netloc
conn = http.client.HTTPConnection(host)
def call(method, path, body=None, raw=False):
    headers = {"Authorization": f"Bearer {token}"}
    if body is not None and not raw:
        body = json.dumps(body); headers["content-type"] = "application/json"
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse(); data = response.read()
    if response.status >= 300:
        raise SystemExit(f"{method} {path}: {response.status} {data[:300]!r}")
    return json.loads(data) if data else None
schema = {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}
turned = 0
for p in range(projects):
    slug = f"bench-{p}"
    call("POST", "/api/v1/projects", {"name": slug, "slug": slug, "base_url": f"http://127.0.0.1:{port}"})
    paths = {f"/r{p}/item{i}": {"get": {"operationId": f"op{i}", "responses": {"200": {"description": "ok",
             "content": {"application/json": {"schema": schema}}}}}} for i in range(per)}
    doc = {"openapi": "3.0.3", "info": {"title": slug, "version": "1"}, "paths": paths}
    call("POST", f"/api/v1/projects/{slug}/versions?label=1", json.dumps(doc).encode(), raw=True)
    for monitor in call("GET", f"/api/v1/projects/{slug}/monitors")["data"]:
        if turned == total:
            break
        call("PATCH", f"/api/v1/projects/{slug}/monitors/{monitor['id']}", {"monitored": True})
        turned += 1
print(f"{turned} monitors on")
PY

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"; }
before="$(rss)"
( while kill -0 "$pid" 2>/dev/null; do rss >>"$data/rss" 2>/dev/null || true; sleep 0.05; done ) &
sampler=$!
began="$(date +%s.%N)"
probed="$(curl -sf -X POST -H "Authorization: Bearer $CRON_SECRET" "$base/api/cron/uptime" | python3 -c 'import json,sys; print(json.load(sys.stdin)["probed"])')"
ended="$(date +%s.%N)"
kill "$sampler" 2>/dev/null || true
peak="$(sort -n "$data/rss" | tail -n 1)"
secs="$(echo "$ended - $began" | bc -l)"
up="$(curl -sf -H 'Accept: application/json' "$base/api/v1/projects/bench-0/monitors/status" -H "Authorization: Bearer $token" \
  | python3 -c 'import json,sys; rows=json.load(sys.stdin)["rows"]; print(sum(1 for r in rows if r["state"]=="up"), "of", len(rows))')"
printf 'round: %d probes in %.2f s, %.0f probes/s (target: under 60 s)\n' "$probed" "$secs" "$(echo "$probed / $secs" | bc -l)"
printf 'resident memory: %.1f MB before the round, %.1f MB at its peak\n' "$(echo "$before / 1024" | bc -l)" "$(echo "$peak / 1024" | bc -l)"
echo "bench-0 after the round: $up operations up"
