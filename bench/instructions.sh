#!/usr/bin/env bash
# Instructions per request, old binary against new, for the hub's hot paths:
# each server runs under valgrind's callgrind (which counts instructions,
# not seconds, so a busy or shared machine does not move the result), gets
# a warm-up and then N requests on one keep-alive connection, and the
# difference between a short and a long run divided by the extra requests is
# the cost of one request. Prints both and the ratio; the hardening target
# is at most 1.05.
#
#   mock-example   GET  /mock/<slug>/pets/7    hosted mock, explicit example
#   mock-generated GET  /mock/<slug>/pets      hosted mock, schema-generated
#   api-get        GET  /api/v1/projects/<slug> with a token
#   docs-page      GET  /docs/<slug>/1/op/...  a cached docs page
#
# Usage: SVC_BIN_OLD=path SVC_BIN=path bench/instructions.sh [N]   (default 3000)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N="${1:-3000}"
old="${SVC_BIN_OLD:?set SVC_BIN_OLD to the binary to compare against}"
new="${SVC_BIN:?set SVC_BIN to the binary to measure}"
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)"; exit 1; }

# Total instructions of one server process serving `count` requests to `path`.
run() {
  local bin="$1" path="$2" count="$3" data port pid token
  data="$(mktemp -d)"
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
  "$bin" --data-dir "$data" hub user create --email bench@example.com --plan business >/dev/null
  token="$("$bin" --json --data-dir "$data" hub token create --email bench@example.com --name bench | sed -n 's/.*"token":"\([^"]*\)".*/\1/p')"
  SVC_MOCK_RATE_PER_PROJECT=0 SVC_MOCK_RATE_PER_IP=0 RUST_LOG=warn valgrind --tool=callgrind \
    --callgrind-out-file="$data/cg.out" "$bin" --data-dir "$data" serve hub --no-demo --hub-listen "127.0.0.1:$port" \
    >/dev/null 2>"$data/valgrind.err" &
  pid=$!
  for _ in $(seq 1 600); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.2; done
  curl -sf -o /dev/null -H "Authorization: Bearer $token" -H 'content-type: application/json' \
    -d '{"name":"Pets","slug":"pets","is_public":true}' "http://127.0.0.1:$port/api/v1/projects"
  curl -sf -o /dev/null -H "Authorization: Bearer $token" --data-binary "@$ROOT/bench/petstore.yaml" \
    "http://127.0.0.1:$port/api/v1/projects/pets/versions?label=1"
  python3 - "$port" "$path" "$count" "$token" <<'PY'
import http.client, sys
port, path, count, token = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
headers = {"Authorization": f"Bearer {token}"} if path.startswith("/api/") else {}
for _ in range(20 + count):  # 20 warm-up requests fill every cache first
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    response.read()
    assert response.status == 200, (path, response.status)
PY
  kill -INT "$pid"; wait "$pid" 2>/dev/null || true
  sed -n 's/^summary: \([0-9]*\).*/\1/p; s/^totals: \([0-9]*\).*/\1/p' "$data/cg.out" | head -n 1
  rm -rf "$data"
}

per_request() {
  local bin="$1" path="$2" short long
  short="$(run "$bin" "$path" 200)"
  long="$(run "$bin" "$path" "$((200 + N))")"
  echo $(( (long - short) / N ))
}

printf '%-16s %14s %14s %8s\n' scenario "old instr/req" "new instr/req" ratio
for scenario in "mock-example /mock/pets/pets/7" "mock-generated /mock/pets/pets" \
                "api-get /api/v1/projects/pets" "docs-page /docs/pets/1/op/showPetById"; do
  set -- $scenario
  o="$(per_request "$old" "$2")"
  n="$(per_request "$new" "$2")"
  printf '%-16s %14d %14d %8.3f\n' "$1" "$o" "$n" "$(echo "$n / $o" | bc -l)"
done
