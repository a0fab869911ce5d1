#!/usr/bin/env bash
# Saved requests against Newman (npm `newman`, into $NEWMAN_NPM): the
# collection and environment the hub exports run against a local API and
# pass, and the hub runs the same requests itself; see newman_check.py. On
# a hub started with its demo (a Business account), logging at debug level
# (every request with its path), to check that no secret reaches the log.
# Usage: crates/hub-http/tests/clients/run-newman.sh   (from the repository root)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
npm_dir="${NEWMAN_NPM:-$HOME/.cache/svc-test/newman-npm}"
for tool in python3 node npm; do
  command -v "$tool" >/dev/null || { echo "skipping the Newman check: $tool is not installed"; exit 0; }
done
mkdir -p "$npm_dir"
if [ ! -x "$npm_dir/node_modules/.bin/newman" ]; then
  (cd "$npm_dir" && npm install --silent --no-audit --no-fund "newman@6" >/dev/null)
fi
cargo build --quiet -p svc
data="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$data"' EXIT
# The local API listens on loopback, which the relay's guard refuses unless
# the operator allows it.
RUST_LOG="${RUST_LOG:-debug,sqlx=warn,hyper=info,hyper_util=info,h2=info,rustls=info,reqwest=info}" SVC_OUTBOUND_ALLOW=127.0.0.1 "$target/debug/svc" --json --data-dir "$data" serve hub \
  --hub-listen 127.0.0.1:0 >"$data/out" 2>"$data/err" &
pid=$!
for _ in $(seq 1 300); do grep -q '"service":"hub"' "$data/out" 2>/dev/null && break; sleep 0.1; done
url="$(sed -n 's/.*"service":"hub".*"url":"\([^"]*\)".*/\1/p' "$data/out" | head -n 1)"
token="$(sed -n 's/.*"token":"\(svc_pat_[^"]*\)".*/\1/p' "$data/out" | head -n 1)"
[ -n "$url" ] && [ -n "$token" ] || { cat "$data/err"; echo "the hub did not start"; exit 1; }
python3 "$here/newman_check.py" "$url" "$token" "$npm_dir/node_modules/.bin/newman" "$data/out" "$data/err" \
  || { tail -n 20 "$data/err"; exit 1; }
