#!/usr/bin/env bash
# Server time of docs pages rendered for the first time (nothing cached:
# the parse done, every page's HTML built, its code samples highlighted),
# for two builds side by side: SVC_BIN_OLD and SVC_BIN (default: a release
# build of this checkout). Each build serves GitHub's REST description; the
# script times N operation pages and every schema page it links, once each,
# and repeats the whole run ROUNDS times alternating the builds, so both
# see the same machine. Prints the median page time of each build and their
# ratio (issue 24's budget: the new build within 5 % of the old).
#
# Usage: SVC_BIN_OLD=old/svc [SVC_BIN=new/svc] bench/page-times.sh [N] [ROUNDS]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CACHE="${SVC_TEST_CACHE:-$HOME/.cache/svc-test}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/svc-target}"
[ -n "${SVC_BIN_OLD:-}" ] || { echo "set SVC_BIN_OLD to the build to compare against"; exit 2; }
n="${1:-300}"
rounds="${2:-3}"
new="${SVC_BIN:-}"
if [ -z "$new" ]; then
  cargo build --release --locked -p svc -q
  new="$CARGO_TARGET_DIR/release/svc"
fi
spec="$CACHE/bench/api.github.com.json"
if [ ! -f "$spec" ]; then
  mkdir -p "$CACHE/bench"
  (cd "$CACHE/bench" && npm pack --silent @octokit/openapi@23.0.2 >/dev/null \
    && tar -xzf octokit-openapi-23.0.2.tgz package/generated/api.github.com.json \
    && mv package/generated/api.github.com.json . && rm -rf package octokit-openapi-23.0.2.tgz)
fi

# One run of one build: prints one time in milliseconds per page.
run() {
  local svc="$1" data pid base token
  data="$(mktemp -d)"
  "$svc" --data-dir "$data" hub user create --email bench@example.com --plan business >/dev/null
  token="$("$svc" --json --data-dir "$data" hub token create --email bench@example.com --name bench | sed -n 's/.*"token":"\([^"]*\)".*/\1/p')"
  RUST_LOG=warn "$svc" --json --data-dir "$data" serve hub --no-demo --hub-listen 127.0.0.1:0 >"$data/out" 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do grep -q '"service":"hub"' "$data/out" 2>/dev/null && break; sleep 0.1; done
  base="http://$(sed -n 's/.*"service":"hub".*"listen":"\([^"]*\)".*/\1/p' "$data/out" | head -n 1)"
  curl -sf -o /dev/null -H "Authorization: Bearer $token" -H 'content-type: application/json' \
    -d '{"name":"GitHub","slug":"github","is_public":true}' "$base/api/v1/projects"
  curl -sf -o /dev/null -H "Authorization: Bearer $token" --data-binary "@$spec" "$base/api/v1/projects/github/versions?label=bench"
  curl -sf -o "$data/index.html" "$base/docs/github/bench"
  grep -o 'href="/docs/github/bench/op/[^"]*"' "$data/index.html" | sed 's/href="//; s/"$//' | head -n "$n" >"$data/pages" || true
  curl -sf "$base/docs/github/bench/schemas" | grep -o 'href="/docs/github/bench/schemas/[^"]*"' | sed 's/href="//; s/"$//' | head -n "$n" >>"$data/pages" || true
  while read -r path; do
    curl -sf -o /dev/null -w '%{time_starttransfer}\n' "$base$path"
  done <"$data/pages"
  kill "$pid"; wait "$pid" 2>/dev/null || true
  rm -rf "$data"
}

median_ms() { sort -g | awk '{ a[NR] = $1 } END { printf "%.2f", (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) * 1000 }'; }
: >/tmp/page-times-old.$$; : >/tmp/page-times-new.$$
for round in $(seq 1 "$rounds"); do
  run "$SVC_BIN_OLD" >>/tmp/page-times-old.$$
  run "$new" >>/tmp/page-times-new.$$
  printf 'round %d: old %s ms, new %s ms (medians so far, %d pages a run)\n' "$round" \
    "$(median_ms </tmp/page-times-old.$$)" "$(median_ms </tmp/page-times-new.$$)" "$(( $(wc -l </tmp/page-times-new.$$) / round ))"
done
old_ms="$(median_ms </tmp/page-times-old.$$)"; new_ms="$(median_ms </tmp/page-times-new.$$)"
rm -f /tmp/page-times-old.$$ /tmp/page-times-new.$$
printf '\nfirst render of a docs page, median: old %s ms, new %s ms, ratio new/old %.3f (budget: at most 1.05)\n' \
  "$old_ms" "$new_ms" "$(echo "$new_ms / $old_ms" | bc -l)"
