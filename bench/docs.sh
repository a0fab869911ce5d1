#!/usr/bin/env bash
# Hosted docs benchmark: prints the server time and page weight of the docs
# index and of one operation page for GitHub's REST description (cold: the
# first request parses the document; warm: the page cache), and, on the same
# document, the time `@redocly/cli build-docs` takes (from the npm registry;
# skipped with SKIP_REDOCLY=1 or without npx).
# Targets: under 50 ms server time per page and under 300 KB of HTML on the
# heaviest page.
#
# Usage: bench/docs.sh [SPEC_FILE]   (default: GitHub's api.github.com.json,
#        fetched as bench/hub.sh does). SVC_BIN=path uses that binary instead
#        of a release build.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CACHE="${SVC_TEST_CACHE:-$HOME/.cache/svc-test}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/svc-target}"

# shellcheck source=bench/docs-common.sh
source "$ROOT/bench/docs-common.sh"

page() {
  local path="$1" cold warm
  cold=$(curl -sf -o "$data/page.html" -w '%{time_starttransfer}' "$base$path")
  for _ in 1 2 3; do curl -sf -o /dev/null "$base$path"; done
  warm=$(curl -sf -o /dev/null -w '%{time_starttransfer}' "$base$path")
  printf '%-60s %8d bytes  cold %6.1f ms  warm %6.1f ms\n' "$path" "$(stat -c %s "$data/page.html")" \
    "$(echo "$cold * 1000" | bc -l)" "$(echo "$warm * 1000" | bc -l)"
}
printf '\n== hosted docs of %s (%d bytes)\n' "$(basename "$spec")" "$(stat -c %s "$spec")"
page /docs/github
first_op="$(grep -o 'href="/docs/github/bench/op/[^"]*"' "$data/page.html" | sed -n '1{s/href="//; s/"$//; p}' || true)"
page /docs/github/bench
[ -n "$first_op" ] && page "$first_op"
page /docs/github/bench/op/get-repos-owner-repo
page /docs/github/bench/schemas/repository
echo "(targets: warm server time under 50 ms per page, under 300 KB of HTML)"

if [ "${SKIP_REDOCLY:-}" != "1" ] && command -v npx >/dev/null; then
  printf '\n== @redocly/cli build-docs on the same document\n'
  start=$(date +%s.%N)
  if (cd "$data" && npx --yes @redocly/cli@2 build-docs "$spec" -o redoc.html >/dev/null 2>&1); then
    end=$(date +%s.%N)
    printf 'build-docs   %.1f s, %d bytes of HTML (one page; the browser then renders it)\n' "$(echo "$end - $start" | bc -l)" "$(stat -c %s "$data/redoc.html")"
  else
    echo "build-docs could not run here"
  fi
fi
