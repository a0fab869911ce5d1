#!/usr/bin/env bash
# The studio's course editor at scale: an author signs up through the
# studio's form, a course of 100 screens (each a heading, a text, a list and
# a question) is created through the API with a key of that workspace, and
# the editor page of that course is fetched repeatedly with the author's
# session. Prints the median, p95 and worst server time (time to the whole
# answer on loopback) and the page weight. Target: under 20 ms.
#
# Usage: bench/studio-editor.sh   SVC_BIN=path uses that binary instead of a
#        release build; SCREENS=n changes the size (at most 200).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/svc-target}"
svc="${SVC_BIN:-}"
if [ -z "$svc" ]; then
  cargo build --release --locked -p svc -q
  svc="$CARGO_TARGET_DIR/release/svc"
fi
data="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$data"' EXIT
RUST_LOG=warn SVC_COURSES_RATE_LIMIT=0 "$svc" --json --data-dir "$data" serve courses --no-demo --courses-listen 127.0.0.1:0 >"$data/out" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q '"service":"courses"' "$data/out" 2>/dev/null && break; sleep 0.1; done
listen="$(sed -n 's/.*"service":"courses".*"listen":"\([^"]*\)".*/\1/p' "$data/out" | head -n 1)"
[ -n "$listen" ] || { cat "$data/out"; echo "the courses service did not start"; exit 1; }
python3 "$ROOT/bench/studio_editor.py" "$listen" "$svc" "$data" "${SCREENS:-100}"
