#!/usr/bin/env bash
# Mock server benchmark: our mock (`svc mock`, and the hub's /mock/<slug> with
# its rate limits raised) and Stoplight Prism on the same spec, one after the
# other, with wrk on loopback. For each: requests per second, p50 and p99
# latency and the server's peak memory, for
#   example    GET /pets/7         answered from an explicit example
#   generated  GET /pets           answered from the schema
#   post       POST /pets          with request validation on
# and examples again on GitHub's REST description (1,223 operations):
#   github        GET /repos/o/r         a 23 KB example
#   github-small  GET /repos/o/r/topics  a 45-byte example, the size of the
#                                        petstore's, four segments deep
# then the ratios against Prism. Target: at least 20 x Prism's throughput and at most a
# fiftieth of its p99, with the same throughput on both descriptions.
#
# On a machine with two cores or more, wrk runs on the last core and every
# server on the others (taskset), so that the load generator does not
# preempt the server it measures; Prism is pinned the same way as ours.
#
# Usage: bench/mock.sh [DURATION_SECONDS]   (default 10); SVC_BIN=path uses
#        that binary instead of a release build; SVC_BENCH_PIN=0 leaves
#        every process free to run on any core.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CACHE="${SVC_TEST_CACHE:-$HOME/.cache/svc-test}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/svc-target}"
DURATION="${1:-10}"
mkdir -p "$CACHE/bench"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
command -v wrk >/dev/null || { echo "installing wrk (Debian package)"; as_root apt-get install -y -q wrk >/dev/null; }
PRISM="$CACHE/bench/prism/node_modules/.bin/prism"
if [ ! -x "$PRISM" ]; then
  echo "installing @stoplight/prism-cli from the npm registry"
  mkdir -p "$CACHE/bench/prism"
  (cd "$CACHE/bench/prism" && npm install --silent --no-audit --no-fund @stoplight/prism-cli@5 >/dev/null)
fi
GITHUB="$CACHE/bench/api.github.com.json"
if [ ! -f "$GITHUB" ]; then
  echo "fetching @octokit/openapi from the npm registry"
  (cd "$CACHE/bench" && npm pack --silent @octokit/openapi@23.0.2 >/dev/null && tar -xzf octokit-openapi-23.0.2.tgz package/generated/api.github.com.json && mv package/generated/api.github.com.json . && rm -rf package octokit-openapi-23.0.2.tgz)
fi

svc="${SVC_BIN:-}"
if [ -z "$svc" ]; then
  cargo build --release --locked -p svc -q
  svc="$CARGO_TARGET_DIR/release/svc"
fi
PET="$ROOT/bench/petstore.yaml"
work="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

ncpu="$(nproc)"
LOADGEN=() SERVER=()
if [ "${SVC_BENCH_PIN:-1}" = 1 ] && [ "$ncpu" -ge 2 ] && command -v taskset >/dev/null; then
  LOADGEN=(taskset -c "$((ncpu - 1))")
  SERVER=(taskset -c "0-$((ncpu - 2))")
  echo "wrk on core $((ncpu - 1)), servers on cores 0-$((ncpu - 2))"
fi

wait_http() { for _ in $(seq 1 1200); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done; echo "no answer from $1" >&2; return 1; }
peak_kib() { awk '/VmHWM/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
# The process listening on a port (Prism's launcher forks the server).
listener_pid() { ss -ltnpH "sport = :$1" | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -n 1; }

# wrk -> "rps p50_ms p99_ms"
measure() {
  local url="$1" script="${2:-}" args=(-t2 -c64 "-d${DURATION}s" --latency)
  [ -n "$script" ] && args+=(-s "$script")
  "${LOADGEN[@]}" wrk "${args[@]}" "$url" > "$work/wrk.txt"
  local rps p50 p99
  rps=$(awk '/Requests\/sec/ {print $2}' "$work/wrk.txt")
  p50=$(awk '$1=="50%" {print $2}' "$work/wrk.txt")
  p99=$(awk '$1=="99%" {print $2}' "$work/wrk.txt")
  if grep -q "Non-2xx" "$work/wrk.txt"; then echo "warning: non-2xx answers for $url: $(grep Non-2xx "$work/wrk.txt")" >&2; fi
  echo "$rps $(to_ms "$p50") $(to_ms "$p99")"
}
to_ms() {
  case "$1" in
    *us) echo "$1" | sed 's/us//' | awk '{printf "%.3f", $1/1000}' ;;
    *ms) echo "$1" | sed 's/ms//' ;;
    *s) echo "$1" | sed 's/s//' | awk '{printf "%.3f", $1*1000}' ;;
    *) echo "$1" ;;
  esac
}

declare -A RESULT
run_scenarios() { # name base_url pid
  local name="$1" base="$2" pid="$3"
  curl -sf -o /dev/null "$base/pets/7"
  RESULT["$name example"]="$(measure "$base/pets/7")"
  RESULT["$name generated"]="$(measure "$base/pets")"
  RESULT["$name post"]="$(measure "$base/pets" "$ROOT/bench/post-pet.lua")"
  RESULT["$name memory"]="$(peak_kib "$pid")"
}

echo "== svc mock"
RUST_LOG=warn "${SERVER[@]}" "$svc" mock "$PET" --validate --listen 127.0.0.1:18401 >/dev/null 2>&1 &
pids+=($!); wait_http http://127.0.0.1:18401/pets/7
run_scenarios "svc-mock" http://127.0.0.1:18401 "${pids[-1]}"
RUST_LOG=warn "${SERVER[@]}" "$svc" mock "$GITHUB" --listen 127.0.0.1:18402 >/dev/null 2>&1 &
pids+=($!); wait_http http://127.0.0.1:18402/repos/o/r
curl -sf -o /dev/null http://127.0.0.1:18402/repos/o/r
RESULT["svc-mock github"]="$(measure http://127.0.0.1:18402/repos/o/r)"
RESULT["svc-mock github-small"]="$(measure http://127.0.0.1:18402/repos/o/r/topics)"
RESULT["svc-mock github-memory"]="$(peak_kib "${pids[-1]}")"
kill "${pids[-2]}" "${pids[-1]}" 2>/dev/null || true

echo "== hub /mock/<slug> (rate limits raised)"
data="$work/hub"
"$svc" --data-dir "$data" hub user create --email bench@example.com --plan business >/dev/null
token="$("$svc" --json --data-dir "$data" hub token create --email bench@example.com --name bench | sed -n 's/.*"token":"\([^"]*\)".*/\1/p')"
RUST_LOG=warn SVC_MOCK_RATE_PER_PROJECT=0 SVC_MOCK_RATE_PER_IP=0 "${SERVER[@]}" "$svc" --json --data-dir "$data" serve hub --no-demo --hub-listen 127.0.0.1:18403 >"$work/hub.out" 2>&1 &
pids+=($!); hub_pid=$!
wait_http http://127.0.0.1:18403/healthz
api=http://127.0.0.1:18403/api/v1/projects
for p in pets github; do
  curl -sf -o /dev/null -H "Authorization: Bearer $token" -H 'content-type: application/json' -d "{\"name\":\"$p\"}" "$api"
  curl -sf -o /dev/null -X PATCH -H "Authorization: Bearer $token" -H 'content-type: application/json' -d '{"is_public":true}' "$api/$p"
done
curl -sf -o /dev/null -H "Authorization: Bearer $token" --data-binary "@$PET" "$api/pets/versions?label=v1"
curl -sf -o /dev/null -H "Authorization: Bearer $token" --data-binary "@$GITHUB" "$api/github/versions?label=v1"
curl -sf -o /dev/null -X PATCH -H "Authorization: Bearer $token" -H 'content-type: application/json' -d '{"validateRequests":true}' "$api/pets/mock/settings"
run_scenarios "hub-mock" http://127.0.0.1:18403/mock/pets "$hub_pid"
curl -sf -o /dev/null http://127.0.0.1:18403/mock/github/repos/o/r
RESULT["hub-mock github"]="$(measure http://127.0.0.1:18403/mock/github/repos/o/r)"
RESULT["hub-mock github-small"]="$(measure http://127.0.0.1:18403/mock/github/repos/o/r/topics)"
kill "$hub_pid" 2>/dev/null || true

echo "== Prism $("$PRISM" --version 2>/dev/null || true)"
"${SERVER[@]}" "$PRISM" mock "$PET" -h 127.0.0.1 -p 18404 >"$work/prism.out" 2>&1 &
pids+=($!); prism_pid=$!
wait_http http://127.0.0.1:18404/pets/7 || { tail -n 20 "$work/prism.out"; exit 1; }
prism_server="$(listener_pid 18404)"
run_scenarios "prism" http://127.0.0.1:18404 "${prism_server:-$prism_pid}"
kill "$prism_pid" "$prism_server" 2>/dev/null || true
"${SERVER[@]}" "$PRISM" mock "$GITHUB" -h 127.0.0.1 -p 18405 >"$work/prism-gh.out" 2>&1 &
pids+=($!); prism_gh=$!
if wait_http http://127.0.0.1:18405/repos/o/r; then
  RESULT["prism github"]="$(measure http://127.0.0.1:18405/repos/o/r)"
  RESULT["prism github-small"]="$(measure http://127.0.0.1:18405/repos/o/r/topics)"
else
  RESULT["prism github"]="0 0 0"
  RESULT["prism github-small"]="0 0 0"
fi
kill "$prism_gh" "$(listener_pid 18405)" 2>/dev/null || true

printf '\n%-10s %-11s %12s %10s %10s %12s\n' server scenario req/s p50_ms p99_ms peak_MiB
for server in svc-mock hub-mock prism; do
  for scenario in example generated post github github-small; do
    read -r rps p50 p99 <<<"${RESULT["$server $scenario"]:-0 0 0}"
    mem="${RESULT["$server memory"]:-0}"
    [ "${scenario%-small}" = github ] && mem="${RESULT["$server github-memory"]:-}"
    printf '%-10s %-11s %12s %10s %10s %12s\n' "$server" "$scenario" "$rps" "$p50" "$p99" "$( [ -n "$mem" ] && echo "$mem" | awk '{printf "%.1f", $1/1024}')"
  done
done
printf '\nratios against Prism (throughput x, p99 /):\n'
for server in svc-mock hub-mock; do
  for scenario in example generated post github github-small; do
    read -r rps _ p99 <<<"${RESULT["$server $scenario"]:-0 0 0}"
    read -r prps _ pp99 <<<"${RESULT["prism $scenario"]:-0 0 0}"
    printf '%-10s %-11s throughput %6s x   p99 1/%s\n' "$server" "$scenario" \
      "$(awk -v a="$rps" -v b="$prps" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "n/a" }')" \
      "$(awk -v a="$p99" -v b="$pp99" 'BEGIN { if (a > 0) printf "%.0f", b / a; else print "n/a" }')"
  done
done
echo "(targets: throughput >= 20 x, p99 <= 1/50 of Prism's; github-small close to example)"
