#!/usr/bin/env bash
# MCP server benchmark on GitHub's REST description: `search_endpoints`
# latency (p50 and p99 over 600 calls of 30 questions, each call one
# JSON-RPC POST on a kept-alive connection; target: p99 under 5 ms) and
# `tools/call` throughput of `get_endpoint` with wrk (when installed).
#
# Usage: bench/mcp.sh [SPEC_FILE]   (default: GitHub's api.github.com.json,
#        fetched as bench/docs.sh does). SVC_BIN=path uses that binary instead
#        of a release build.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CACHE="${SVC_TEST_CACHE:-$HOME/.cache/svc-test}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/svc-target}"

# shellcheck source=bench/docs-common.sh
source "$ROOT/bench/docs-common.sh"

printf '\n== MCP on %s (%d bytes)\n' "$(basename "$spec")" "$(stat -c %s "$spec")"
python3 - "$base" <<'PY'
import http.client, json, statistics, sys, time, urllib.parse
base = urllib.parse.urlparse(sys.argv[1])
conn = http.client.HTTPConnection(base.hostname, base.port, timeout=120)
headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}
def call(name, arguments):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
    conn.request("POST", "/api/mcp/github", body, headers)
    response = conn.getresponse()
    data = response.read()
    assert response.status == 200, (response.status, data[:200])
    return json.loads(data)
questions = [
    "list the issues of a repository", "create a release", "delete a repository", "open a pull request",
    "merge a pull request", "who starred a repository", "get the authenticated user", "list organization members",
    "comment on an issue", "add labels to an issue", "list commits", "get a commit", "create a repository",
    "fork a repo", "list branches", "get file contents", "search repositories", "search code", "list workflow runs",
    "create a webhook", "list teams", "create a gist", "list notifications", "latest release", "edit an issue",
    "list collaborators", "create a deployment", "rate limit", "list pull request reviews", "delete a gist",
]
started = time.perf_counter()
call("search_endpoints", {"query": "warm up"})  # the first search indexes the document
print(f"first search (indexes the document): {(time.perf_counter() - started) * 1000:.0f} ms")
times = []
for _ in range(20):
    for q in questions:
        t = time.perf_counter()
        call("search_endpoints", {"query": q})
        times.append((time.perf_counter() - t) * 1000)
times.sort()
p50 = statistics.median(times)
p99 = times[int(len(times) * 0.99) - 1]
print(f"search_endpoints: {len(times)} calls, p50 {p50:.2f} ms, p99 {p99:.2f} ms (target: p99 under 5 ms)")
PY

if command -v wrk >/dev/null; then
  cat >"$data/call.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-06-18"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_endpoint","arguments":{"operationId":"issues/list-for-repo"}}}'
LUA
  printf 'tools/call get_endpoint, 4 connections, 10 s: '
  wrk -t2 -c4 -d10s -s "$data/call.lua" "$base/api/mcp/github" | sed -n 's/^Requests\/sec: *\(.*\)/\1 calls\/s/p'
else
  echo "tools/call throughput: skipped (wrk is not installed; apt-get install wrk)"
fi
