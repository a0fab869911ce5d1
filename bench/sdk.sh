#!/usr/bin/env bash
# SDK benchmark: prints the time to generate the whole TypeScript SDK and the
# whole Python SDK (client, methods and types) for GitHub's REST description,
# next to openapi-typescript (npm) generating types alone from the same file,
# and the ratios. Each time is the median of several runs of a fresh process
# (start-up and parsing included for both sides).
# Target: a whole SDK in under a tenth of openapi-typescript's time.
#
# Usage: bench/sdk.sh [SPEC_FILE]   (default: GitHub's api.github.com.json,
#        fetched from the npm registry into the cache on first use)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CACHE="${SVC_TEST_CACHE:-$HOME/.cache/svc-test}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/svc-target}"
OPENAPI_TYPESCRIPT_VERSION="7.13.0"
RUNS="${RUNS:-5}"
mkdir -p "$CACHE/bench"

spec="${1:-}"
if [ -z "$spec" ]; then
  spec="$CACHE/bench/api.github.com.json"
  if [ ! -f "$spec" ]; then
    echo "fetching @octokit/openapi from the npm registry"
    (cd "$CACHE/bench" && npm pack --silent @octokit/openapi@23.0.2 >/dev/null && tar -xzf octokit-openapi-23.0.2.tgz package/generated/api.github.com.json && mv package/generated/api.github.com.json . && rm -rf package octokit-openapi-23.0.2.tgz)
  fi
fi

# shellcheck source=../crates/sdkgen/tests/tools.sh
. crates/sdkgen/tests/tools.sh
ensure_sdk_tools
node_dir="$CACHE/sdk-node"
if [ ! -x "$node_dir/node_modules/.bin/openapi-typescript" ] \
  || [ "$(node -p "require('$node_dir/node_modules/openapi-typescript/package.json').version")" != "$OPENAPI_TYPESCRIPT_VERSION" ]; then
  npm install --prefix "$node_dir" --no-audit --no-fund --loglevel=error \
    "typescript@$SDK_TYPESCRIPT_VERSION" "openapi-typescript@$OPENAPI_TYPESCRIPT_VERSION" >/dev/null
fi
cargo build --release --locked -q -p sdkgen --example sdkgen
sdkgen="$CARGO_TARGET_DIR/release/examples/sdkgen"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# Median wall time in milliseconds of RUNS runs of a command.
median_ms() {
  local times=()
  for _ in $(seq 1 "$RUNS"); do
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s%N)
    times+=($(( (end - start) / 1000000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p"
}

ops=$(grep -o '"operationId"' "$spec" | wc -l)
echo "spec: $(basename "$spec"), $(( $(stat -c %s "$spec") / 1024 / 1024 )) MB, $ops operations; median of $RUNS runs"
ts_ms=$(median_ms "$sdkgen" "$spec" typescript "$out/sdk.ts")
py_ms=$(median_ms "$sdkgen" "$spec" python "$out/sdk.py")
peer_ms=$(median_ms "$node_dir/node_modules/.bin/openapi-typescript" "$spec" -o "$out/peer.ts")
"$sdkgen" "$spec" typescript "$out/sdk.ts" 2>/dev/null
"$sdkgen" "$spec" python "$out/sdk.py" 2>/dev/null
"$node_dir/node_modules/.bin/openapi-typescript" "$spec" -o "$out/peer.ts" >/dev/null 2>&1
kb() { echo $(( $(stat -c %s "$1") / 1024 )); }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
printf '%-44s %8s ms  %6s KB output\n' "sdkgen: TypeScript SDK (client + types)" "$ts_ms" "$(kb "$out/sdk.ts")"
printf '%-44s %8s ms  %6s KB output\n' "sdkgen: Python SDK (client + types)" "$py_ms" "$(kb "$out/sdk.py")"
printf '%-44s %8s ms  %6s KB output\n' "openapi-typescript $OPENAPI_TYPESCRIPT_VERSION (types only)" "$peer_ms" "$(kb "$out/peer.ts")"
echo "ratio TypeScript SDK / openapi-typescript: $(ratio "$ts_ms" "$peer_ms") (target < 0.1)"
echo "ratio Python SDK / openapi-typescript:     $(ratio "$py_ms" "$peer_ms") (target < 0.1)"
