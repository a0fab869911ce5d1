#!/usr/bin/env bash
# The audit webhook against a receiver of Python's standard library (see
# audit_webhook.py), on a hub started with its demo (a Business account).
# Usage: crates/hub-http/tests/clients/run-audit-webhook.sh   (from the repository root)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
command -v python3 >/dev/null || { echo "skipping the audit webhook check: python3 is not installed"; exit 0; }
cargo build --quiet -p svc
data="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$data"' EXIT
# The receiver listens on loopback, which the outbound guard refuses unless allowed.
SVC_OUTBOUND_ALLOW_WEBHOOKS=127.0.0.1 "$target/debug/svc" --json --data-dir "$data" serve hub \
  --hub-listen 127.0.0.1:0 >"$data/out" 2>"$data/err" &
pid=$!
for _ in $(seq 1 300); do grep -q '"service":"hub"' "$data/out" 2>/dev/null && break; sleep 0.1; done
url="$(sed -n 's/.*"service":"hub".*"url":"\([^"]*\)".*/\1/p' "$data/out" | head -n 1)"
token="$(sed -n 's/.*"token":"\(svc_pat_[^"]*\)".*/\1/p' "$data/out" | head -n 1)"
[ -n "$url" ] && [ -n "$token" ] || { cat "$data/err"; echo "the hub did not start"; exit 1; }
python3 "$here/audit_webhook.py" "$url" "$token" || { tail -n 20 "$data/err"; exit 1; }
