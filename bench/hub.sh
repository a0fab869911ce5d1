#!/usr/bin/env bash
# Hub benchmark: prints
#   1. push-and-parse time and the server's peak memory growth for GitHub's
#      REST description (the largest real-world spec of the corpus), and
#   2. authenticated GET /api/v1/projects/{slug} requests per second (wrk).
# Targets: the document ingested in under 1 s using under 10 times its size in
# memory; at least 20,000 authenticated GETs per second on 2 cores with SQLite.
#
# Usage: bench/hub.sh [SPEC_FILE]   (default: GitHub's api.github.com.json,
#        fetched from the npm registry into the cache on first use)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CACHE="${SVC_TEST_CACHE:-$HOME/.cache/svc-test}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/svc-target}"
mkdir -p "$CACHE/bench"

spec="${1:-}"
if [ -z "$spec" ]; then
  spec="$CACHE/bench/api.github.com.json"
  if [ ! -f "$spec" ]; then
    echo "fetching @octokit/openapi from the npm registry"
    (cd "$CACHE/bench" && npm pack --silent @octokit/openapi@23.0.2 >/dev/null && tar -xzf octokit-openapi-23.0.2.tgz package/generated/api.github.com.json && mv package/generated/api.github.com.json . && rm -rf package octokit-openapi-23.0.2.tgz)
  fi
fi
command -v wrk >/dev/null || { echo "installing wrk (Debian package)"; if [ "$(id -u)" = 0 ]; then apt-get install -y -q wrk >/dev/null; else sudo apt-get install -y -q wrk >/dev/null; fi; }

cargo build --release --locked -p svc -q
svc="$CARGO_TARGET_DIR/release/svc"
data="$(mktemp -d)"
trap 'kill $pid 2>/dev/null || true; rm -rf "$data"' EXIT
"$svc" --data-dir "$data" hub user create --email bench@example.com --plan business >/dev/null
token="$("$svc" --json --data-dir "$data" hub token create --email bench@example.com --name bench | sed -n 's/.*"token":"\([^"]*\)".*/\1/p')"
RUST_LOG=warn "$svc" --json --data-dir "$data" serve hub --no-demo --hub-listen 127.0.0.1:18180 >"$data/out" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q '"service":"hub"' "$data/out" 2>/dev/null && break; sleep 0.1; done
base=http://127.0.0.1:18180
curl -sf -o /dev/null -H "Authorization: Bearer $token" -H 'content-type: application/json' -d '{"name":"GitHub"}' "$base/api/v1/projects"

size=$(stat -c %s "$spec")
rss_before=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
# The peak-RSS counter is reset so the reading covers this push only.
echo 5 > "/proc/$pid/clear_refs" 2>/dev/null || true
hwm_before=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
secs=$(curl -sf -o "$data/push.json" -w '%{time_total}' -H "Authorization: Bearer $token" --data-binary "@$spec" "$base/api/v1/projects/github/versions?label=bench")
hwm_after=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
ops=$(sed -n 's/.*"operation_count":\([0-9]*\).*/\1/p' "$data/push.json")
growth_kb=$((hwm_after - rss_before))
printf '\n== push and parse\n'
printf 'document      %s (%d bytes, %s operations)\n' "$(basename "$spec")" "$size" "$ops"
printf 'time          %s s (target < 1 s)\n' "$secs"
printf 'peak memory   +%d KiB over the idle server = %.1f x the document (target < 10 x)\n' "$growth_kb" "$(echo "$growth_kb * 1024 / $size" | bc -l)"

bad="$ROOT/../shared/specs/bad"
if [ -d "$bad" ]; then
  printf '\n== broken inputs (each must answer 4xx well under 1 s)\n'
  for f in "$bad"/*; do
    case "$f" in *.md) continue ;; esac
    printf '%-50s %s\n' "$(basename "$f")" "$(curl -s -o /dev/null -w '%{http_code} in %{time_total} s' -H "Authorization: Bearer $token" --data-binary "@$f" "$base/api/v1/projects/github/versions?label=bad")"
  done
fi

printf '\n== authenticated GET /api/v1/projects/github (wrk, 2 threads, 64 connections, 10 s)\n'
wrk -t2 -c64 -d10s -H "Authorization: Bearer $token" "$base/api/v1/projects/github" | sed -n '/Requests\/sec/p;/Latency/p;/requests in/p'
echo "(target: at least 20000 requests/sec on 2 cores with SQLite)"
