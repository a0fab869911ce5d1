#!/usr/bin/env bash
# First, without a server: the SDKs of ../runtime/features.yaml run
# ../runtime/runtime.ts (with a recording `fetch`) and ../runtime/runtime.py
# (against a recording local server) to check every parameter location, body
# encoding and credential location on the wire.
#
# Then end to end: generates the TypeScript and Python SDKs of petstore.yaml,
# type-checks main.ts and main.py against them (tsc --strict, mypy --strict),
# then runs both programs against a mock server of petstore.yaml, with
# retry_proxy.py in front for the retry check (first request 429 with
# `Retry-After: 1`, then forwarded).
#
# Usage: run.sh [BASE_URL]
#   BASE_URL   a running mock of petstore.yaml (for example the hub's hosted
#              mock of a project holding it: http://HUB/mock/<slug>). Without
#              it, `svc mock petstore.yaml --listen 127.0.0.1:PORT` is started
#              when this build of svc has that command; otherwise the run is
#              skipped with a message.
# Environment: SVC (the svc binary; default: built), SDKGEN, SVC_TEST_CACHE.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
# shellcheck source=../tools.sh
. "$HERE/../tools.sh"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }

pids=()
work="$(mktemp -d)"
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

ensure_sdkgen "$ROOT"
ensure_sdk_tools

echo "runtime checks: parameters, bodies and credentials on the wire"
mkdir -p "$work/runtime"
"$SDKGEN" "$HERE/../runtime/features.yaml" typescript "$work/runtime/features.ts" 2>/dev/null
"$SDKGEN" "$HERE/../runtime/features.yaml" python "$work/runtime/features.py" 2>/dev/null
cp "$HERE/../runtime/runtime.ts" "$HERE/../runtime/runtime.py" "$work/runtime/"
"$TSC" --strict --noUncheckedIndexedAccess --target es2022 --lib es2022,dom --module commonjs \
  --outDir "$work/runtime/out" "$work/runtime/runtime.ts" "$work/runtime/features.ts"
(cd "$work/runtime" && "$MYPY" --strict --no-incremental runtime.py features.py >/dev/null)
node "$work/runtime/out/runtime.js"
(cd "$work/runtime" && python3 runtime.py)

base_url="${1:-}"
if [ -z "$base_url" ]; then
  if [ -z "${SVC:-}" ]; then
    (cd "$ROOT" && cargo build --quiet --locked -p svc)
    SVC="${CARGO_TARGET_DIR:-$ROOT/target}/debug/svc"
  fi
  if ! "$SVC" mock --help >/dev/null 2>&1; then
    echo "skipping the end-to-end part: this svc has no \`mock\` command; pass the base URL of a mock of petstore.yaml"
    echo "2 passed, 0 failed"
    exit 0
  fi
  port="$(free_port)"
  # Strict: requests must match the description and carry the API key.
  "$SVC" mock "$HERE/petstore.yaml" --listen "127.0.0.1:$port" --validate --enforce-auth >"$work/mock.log" 2>&1 &
  pids+=("$!")
  wait_port "$port" || { cat "$work/mock.log"; echo "the mock did not start"; exit 1; }
  base_url="http://127.0.0.1:$port"
fi
echo "mock at $base_url"

"$SDKGEN" "$HERE/petstore.yaml" typescript "$work/petstore.ts" 2>/dev/null
"$SDKGEN" "$HERE/petstore.yaml" python "$work/petstore.py" 2>/dev/null
cp "$HERE/main.ts" "$HERE/main.py" "$work/"

echo "type-checking the programs with their SDKs"
"$TSC" --strict --noUncheckedIndexedAccess --target es2022 --lib es2022,dom --module commonjs \
  --outDir "$work/out" "$work/main.ts" "$work/petstore.ts"
(cd "$work" && "$MYPY" --strict --no-incremental main.py petstore.py)

run_with_proxy() {
  local name="$1"; shift
  local port; port="$(free_port)"
  python3 "$HERE/retry_proxy.py" "$port" "$base_url" >"$work/proxy-$name.log" 2>&1 &
  local pid=$!
  pids+=("$pid")
  wait_port "$port" || { cat "$work/proxy-$name.log"; echo "the retry proxy did not start"; exit 1; }
  PETSTORE_URL="$base_url" PETSTORE_RETRY_URL="http://127.0.0.1:$port" "$@"
  kill "$pid" 2>/dev/null || true
  # The proxy saw the refused request and the retry.
  grep -q '^1 GET /pets -> 429' "$work/proxy-$name.log" && grep -q '^2 GET /pets -> forwarded 200' "$work/proxy-$name.log" \
    || { cat "$work/proxy-$name.log"; echo "$name: the proxy did not see a 429 followed by a retry"; exit 1; }
}

run_with_proxy typescript node "$work/out/main.js"
run_with_proxy python env PYTHONPATH="$work" python3 "$work/main.py"
echo "4 passed, 0 failed"
