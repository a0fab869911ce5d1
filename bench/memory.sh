#!/usr/bin/env bash
# Resident memory of one hub process, step by step: at start (with the demo
# project), after each kind of docs page of the demo (overview, operation,
# tag, schema, search index, Markdown for assistants), after the mock, then
# after pushing GitHub's REST description and serving its overview, an
# operation page, a schema page, docs search and MCP search. The push
# starts the sentence model encoding its sections, which the script waits
# for, printing the largest size meanwhile (SVC_SEARCH_MODEL=off skips it).
# Targets (issue 24): the first highlighted page adds under 15 MB; the hub
# ends under 160 MB.
#
# Usage: bench/memory.sh [SPEC_FILE]   (default: GitHub's api.github.com.json
#        from @octokit/openapi, fetched once into ~/.cache/svc-test/bench).
#        SVC_BIN=path uses that binary instead of a release build.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CACHE="${SVC_TEST_CACHE:-$HOME/.cache/svc-test}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/svc-target}"
mkdir -p "$CACHE/bench"

spec="${1:-$CACHE/bench/api.github.com.json}"
if [ ! -f "$spec" ]; then
  echo "fetching @octokit/openapi from the npm registry"
  (cd "$CACHE/bench" && npm pack --silent @octokit/openapi@23.0.2 >/dev/null \
    && tar -xzf octokit-openapi-23.0.2.tgz package/generated/api.github.com.json \
    && mv package/generated/api.github.com.json . && rm -rf package octokit-openapi-23.0.2.tgz)
fi
svc="${SVC_BIN:-}"
if [ -z "$svc" ]; then
  cargo build --release --locked -p svc -q
  svc="$CARGO_TARGET_DIR/release/svc"
fi

data="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$data"' EXIT
RUST_LOG=warn,hub_core::semantic=info "$svc" --json --data-dir "$data" serve hub --hub-listen 127.0.0.1:0 >"$data/out" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q '"service":"hub"' "$data/out" 2>/dev/null && break; sleep 0.1; done
base="http://$(sed -n 's/.*"service":"hub".*"listen":"\([^"]*\)".*/\1/p' "$data/out" | head -n 1)"
token="$(sed -n 's/.*"token":"\(svc_pat_[^"]*\)".*/\1/p' "$data/out" | head -n 1)"
[ -n "$token" ] || { cat "$data/out"; echo "the hub did not start"; exit 1; }

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"; }
# The anonymous part is the process's own memory (heap, stacks); the file
# part is the executable's pages and SQLite's memory map of the database,
# shared pages the kernel can take back at any time.
anon_kb() { awk '/^RssAnon:/ { print $2 }' "/proc/$pid/status"; }
start_kb="$(rss_kb)"
last_kb="$start_kb"
step() {
  local name="$1"; shift
  for url in "$@"; do curl -sf -o /dev/null -H "Authorization: Bearer $token" "$url"; done
  local now; now="$(rss_kb)"
  printf '%-46s %6.1f MB  (%+6.1f MB)  anonymous %6.1f MB\n' "$name" "$(echo "$now / 1024" | bc -l)" \
    "$(echo "($now - $last_kb) / 1024" | bc -l)" "$(echo "$(anon_kb) / 1024" | bc -l)"
  last_kb="$now"
}
printf '%-46s %6.1f MB              anonymous %6.1f MB\n' "started, demo project seeded" \
  "$(echo "$start_kb / 1024" | bc -l)" "$(echo "$(anon_kb) / 1024" | bc -l)"
label="$(curl -sf "$base/api/v1/projects/bookshelf/versions" -H "Authorization: Bearer $token" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"][0]["version_label"])')"
demo="$base/docs/bookshelf/$label"
step "demo: overview" "$base/docs/bookshelf"
step "demo: operation page (highlighted samples)" "$demo/op/createBook" "$demo/op/listBooks"
step "demo: tag page" "$demo/tags/Books"
step "demo: schema pages" "$demo/schemas" "$demo/schemas/Book"
step "demo: search index" "$demo/search"
step "demo: llms.txt and Markdown" "$base/docs/bookshelf/llms.txt" "$demo/op/createBook.md"
step "demo: mock" "$base/mock/bookshelf/books" "$base/mock/bookshelf/books/3fa85f64-5717-4562-b3fc-2c963f66afa6"

curl -sf -o /dev/null -H "Authorization: Bearer $token" -H 'content-type: application/json' \
  -d '{"name":"GitHub","slug":"github","is_public":true}' "$base/api/v1/projects"
curl -sf -o /dev/null -H "Authorization: Bearer $token" --data-binary "@$spec" "$base/api/v1/projects/github/versions?label=bench&makeDefault=true"
# The push starts the built-in sentence model encoding GitHub's sections in
# the background (a minute or more of one core): the largest size while it
# does. The demo project's sections, encoded at start, log a line too.
sha="$(sha256sum "$spec" | cut -d' ' -f1)"
encoded() { grep "embedded a document's sections" "$data/out" 2>/dev/null | grep -q "$sha"; }
peak_kb="$(rss_kb)"
if [ "$(echo "${SVC_SEARCH_MODEL:-}" | tr '[:upper:]' '[:lower:]')" != off ]; then
  for _ in $(seq 1 600); do
    encoded && break
    now_kb="$(rss_kb)"; [ "$now_kb" -gt "$peak_kb" ] && peak_kb="$now_kb"
    sleep 0.5
  done
fi
sleep 12  # the blocking pool keeps an idle thread (and its allocator pages) 10 s
step "GitHub's description pushed ($(( $(stat -c %s "$spec") / 1024 / 1024 )) MB)"
if encoded; then
  printf '%-46s %6.1f MB  (largest while encoding)\n' "GitHub: sections encoded by the sentence model" \
    "$(echo "$peak_kb / 1024" | bc -l)"
fi
gh="$base/docs/github/bench"
step "GitHub: overview" "$base/docs/github"
step "GitHub: operation page" "$gh/op/get-repos-owner-repo"
step "GitHub: schema page" "$gh/schemas/repository"
step "GitHub: docs search" "$gh/search"
mcp() {
  curl -sf -o /dev/null -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
    -H 'mcp-protocol-version: 2025-06-18' \
    -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"search_endpoints\",\"arguments\":{\"query\":\"$1\"}}}" \
    "$base/api/mcp/github"
}
mcp "list the issues of a repository"; mcp "create a release"; mcp "how many API calls do I have left"
step "GitHub: MCP search_endpoints"
printf '\n%-46s %6.1f MB  (target: under 160 MB; anonymous %.1f MB)\n' "the hub at the end" \
  "$(echo "$(rss_kb) / 1024" | bc -l)" "$(echo "$(anon_kb) / 1024" | bc -l)"
