#!/usr/bin/env bash
# The search evaluation (bench/search-eval): recall@1, recall@3 and MRR of
# the docs search, and how often MCP `ask_docs` cites an expected
# operation, per API and per half (dev, test), in a release build.
# Quote the test half only; the development half is the one looked at
# while tuning (its misses are listed at the end).
# Needs ../shared/specs beside the checkout, and GitHub's REST description
# (SVC_GITHUB_SPEC, or the cache scripts/test fills).
# Usage: bench/search-eval.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/svc-target}"
SVC_SEARCH_EVAL="$root/bench/search-eval" cargo test --release --locked -p hub-http --test it search_eval -- --nocapture 2>&1 \
  | grep -E '^(api|all|[a-z]+ +(dev|test)|dev miss|[a-z]+ +skipped)' || true
