#!/usr/bin/env bash
# Diff benchmark: prints the time `svc diff` takes for the largest pair of the
# shared collection (Kubernetes, 3 MB per side) and for every other REST pair,
# next to api-smart-diff and openapi-diff (both from the npm registry) on the
# same files, with the ratios and the number of breaking changes each reports.
# Each time is the median of RUNS fresh processes (start-up and parsing
# included for every tool). Target: under 100 ms for the largest pair.
#
# Usage: [SVC_BIN=path] [RUNS=n] bench/diff.sh [OLD NEW]   (default: every REST pair beside the
#        checkout in ../shared/specs/pairs)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CACHE="${SVC_TEST_CACHE:-$HOME/.cache/svc-test}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/svc-target}"
RUNS="${RUNS:-3}"
PEER_TIMEOUT="${PEER_TIMEOUT:-300}"
peers="$CACHE/bench/diff-peers"
mkdir -p "$peers"

pairs=()
if [ $# -eq 2 ]; then
  pairs+=("$1 $2")
else
  dir="$ROOT/../shared/specs/pairs"
  [ -d "$dir" ] || { echo "skipping: ../shared/specs/pairs is not beside the checkout; pass OLD NEW"; exit 0; }
  for old in "$dir"/*.v1.*; do
    case "$old" in *.graphql) continue ;; esac
    new="$(ls "${old%.v1.*}".v2.* | head -n 1)"
    pairs+=("$old $new")
  done
fi

if [ ! -d "$peers/node_modules/api-smart-diff" ] || [ ! -d "$peers/node_modules/openapi-diff" ]; then
  echo "installing api-smart-diff and openapi-diff from the npm registry"
  npm install --prefix "$peers" --no-audit --no-fund --loglevel=error api-smart-diff@1 openapi-diff@0.24 js-yaml@4 >/dev/null
fi
cat > "$peers/smart.js" <<'EOF'
// api-smart-diff over two files: prints the number of breaking changes.
const fs = require("fs");
const yaml = require("js-yaml");
const { apiCompare } = require("api-smart-diff");
const load = (p) => yaml.load(fs.readFileSync(p, "utf8"));
const { diffs } = apiCompare(load(process.argv[2]), load(process.argv[3]));
console.log(diffs.filter((d) => d.type === "breaking").length);
EOF

if [ -n "${SVC_BIN:-}" ]; then
  svc="$SVC_BIN"
else
  cargo build --release --locked -q -p svc
  svc="$CARGO_TARGET_DIR/release/svc"
fi

median_ms() {
  local times=()
  for _ in $(seq 1 "$RUNS"); do
    local start end
    start=$(date +%s%N)
    timeout "$PEER_TIMEOUT" "$@" >/dev/null 2>&1 || true
    end=$(date +%s%N)
    times+=($(((end - start) / 1000000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p"
}

printf '%-28s %10s %16s %14s %10s %10s\n' pair "svc ms" "smart-diff ms" "openapi-diff ms" "x smart" "x o-diff"
for pair in "${pairs[@]}"; do
  read -r old new <<<"$pair"
  name="$(basename "$old" | sed 's/\.v1\..*//')"
  ours=$(median_ms "$svc" diff "$old" "$new")
  smart=$(median_ms node "$peers/smart.js" "$old" "$new")
  odiff=$(RUNS=1 median_ms "$peers/node_modules/.bin/openapi-diff" "$old" "$new")
  breaking_ours=$("$svc" --json diff "$old" "$new" 2>/dev/null | sed -n 's/.*"breaking":\([0-9]*\).*/\1/p' | head -n 1)
  breaking_smart=$(timeout "$PEER_TIMEOUT" node "$peers/smart.js" "$old" "$new" 2>/dev/null || echo "?")
  printf '%-28s %10s %16s %14s %10s %10s   breaking: ours %s, smart-diff %s\n' "$name" "$ours" "$smart" "$odiff" \
    "$(awk -v a="$smart" -v b="$ours" 'BEGIN { printf "%.0f", a / (b > 0 ? b : 1) }')" \
    "$(awk -v a="$odiff" -v b="$ours" 'BEGIN { printf "%.0f", a / (b > 0 ? b : 1) }')" \
    "${breaking_ours:-?}" "$breaking_smart"
done
echo "(target: the largest pair in under 100 ms; openapi-diff is cut off after ${PEER_TIMEOUT} s)"
