#!/usr/bin/env bash
# Generates the TypeScript and Python SDK of every REST description under the
# given folders (default: ../shared/specs beside the checkout, its openapi3/,
# swagger2/, pairs/ and edge/ folders) and type-checks them all at once:
# `tsc --strict --noEmit --noUncheckedIndexedAccess` over every .ts file in one
# invocation and `mypy --strict` over every .py file in another. GraphQL
# documents must be refused with the documented message.
#
# Tools are installed idempotently under $SVC_TEST_CACHE (default
# ~/.cache/svc-test): TypeScript from npm into sdk-node/, mypy into venv-sdk/.
#
# Environment:
#   SDKGEN            the generator binary (default: built from the sdkgen example)
#   SDK_CORPUS_DIR    also check a sample of this flat folder of specs
#                     (fetch-corpus.sh's flat/), SDK_CORPUS_SAMPLE files (default 200)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
# shellcheck source=tools.sh
. "$(dirname "${BASH_SOURCE[0]}")/tools.sh"

if [ "$#" -gt 0 ]; then
  dirs=("$@")
elif [ -d "$ROOT/../shared/specs" ]; then
  dirs=()
  for sub in openapi3 swagger2 pairs edge graphql; do
    [ -d "$ROOT/../shared/specs/$sub" ] && dirs+=("$ROOT/../shared/specs/$sub")
  done
else
  echo "skipping: ../shared/specs not found beside the checkout"
  exit 0
fi

ensure_sdkgen "$ROOT"
ensure_sdk_tools

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ts" "$work/py"

files=()
for dir in "${dirs[@]}"; do
  while IFS= read -r file; do files+=("$file"); done < <(find "$dir" -maxdepth 1 -type f \( -name '*.json' -o -name '*.yaml' -o -name '*.yml' -o -name '*.graphql' \) | sort)
done
if [ -n "${SDK_CORPUS_DIR:-}" ] && [ -d "$SDK_CORPUS_DIR" ]; then
  sample="${SDK_CORPUS_SAMPLE:-200}"
  # A deterministic spread: every k-th file of the sorted folder.
  mapfile -t all < <(find "$SDK_CORPUS_DIR" -maxdepth 1 -type f -name '*.json' | sort)
  step=$(( ${#all[@]} / sample )); [ "$step" -ge 1 ] || step=1
  for ((i = 0; i < ${#all[@]}; i += step)); do files+=("${all[$i]}"); done
fi

generated=0 refused=0 skipped=0 n=0
for file in "${files[@]}"; do
  n=$((n + 1))
  stem="sdk_$(printf '%04d' "$n")"
  if [[ "$file" == *.graphql ]]; then
    if "$SDKGEN" "$file" typescript "$work/ts/$stem.ts" 2>"$work/err"; then
      echo "FAIL: $file: a GraphQL document produced an SDK"; exit 1
    fi
    grep -q "GraphQL" "$work/err" || { echo "FAIL: $file: unexpected error: $(cat "$work/err")"; exit 1; }
    refused=$((refused + 1))
    continue
  fi
  if ! "$SDKGEN" "$file" typescript "$work/ts/$stem.ts" 2>"$work/err"; then
    # Documents our parser refuses (broken on purpose, or external $refs) have no SDK.
    echo "  no SDK for $(basename "$file"): $(tail -n 1 "$work/err")"
    skipped=$((skipped + 1))
    continue
  fi
  "$SDKGEN" "$file" python "$work/py/$stem.py" 2>/dev/null
  echo "$stem $file" >>"$work/index"
  generated=$((generated + 1))
done
echo "generated $generated TypeScript and $generated Python SDKs ($refused GraphQL refused, $skipped unparseable)"
[ "$generated" -gt 0 ] || { echo "no SDK was generated"; exit 1; }

# One tsc and one mypy invocation per batch of files (one for all of
# ../shared/specs; the whole corpus needs several to stay within memory).
BATCH="${SDK_TYPECHECK_BATCH:-400}"
summarise() { # $1 = checker output; counts errors per generated file and names its spec
  grep -oE 'sdk_[0-9]+\.(ts|py)' "$1" | sort | uniq -c | sort -rn | head -n 20 | while read -r count name; do
    echo "  $count errors in $(grep "^${name%.*} " "$work/index" | cut -d' ' -f2-)"
  done
}
status=0
mapfile -t stems < <(cut -d' ' -f1 "$work/index")
echo "tsc --strict --noEmit --noUncheckedIndexedAccess and mypy --strict over $generated files, $BATCH at a time"
for ((i = 0; i < ${#stems[@]}; i += BATCH)); do
  batch=("${stems[@]:i:BATCH}")
  ts_files=() py_files=()
  for stem in "${batch[@]}"; do ts_files+=("$work/ts/$stem.ts"); py_files+=("$stem.py"); done
  if ! NODE_OPTIONS="--max-old-space-size=6144" "$TSC" --strict --noEmit --noUncheckedIndexedAccess --target es2022 \
      --lib es2022,dom --module esnext --moduleResolution bundler --skipLibCheck --pretty false \
      "${ts_files[@]}" >"$work/tsc.out" 2>&1; then
    status=1
    sed -E 's#^.*/(sdk_[0-9]+)\.ts#\1.ts#' "$work/tsc.out" | head -n 30 || true
    summarise "$work/tsc.out" || true
  fi
  if ! (cd "$work/py" && "$MYPY" --strict --no-incremental --hide-error-context --no-error-summary "${py_files[@]}") \
      >"$work/mypy.out" 2>&1; then
    status=1
    head -n 30 "$work/mypy.out"
    summarise "$work/mypy.out" || true
  fi
done
if [ "$status" = 0 ]; then
  echo "$((generated * 2)) passed, 0 failed"
else
  echo "type check failed"
fi
exit "$status"
