#!/usr/bin/env bash
# Starts `svc serve courses` on a free loopback port with a fresh data dir,
# creates a Build workspace and a key, and runs mcp_smoke.py (the official
# MCP client SDK) against it.
# Usage: crates/courses-http/tests/clients/run-mcp.sh   (from the repository root)
# Uses CARGO_TARGET_DIR (default target) and the project's ignored .venv.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
venv="${MCP_VENV:-$root/.venv/courses-clients}"
cargo build --quiet -p svc
svc="$target/debug/svc"
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
if ! "$venv/bin/python" -c "import mcp" 2>/dev/null; then
  "$venv/bin/pip" install -q --disable-pip-version-check "mcp==2.3.0"
fi
data="$(mktemp -d)"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$data"' EXIT
"$svc" --json --data-dir "$data" serve courses --no-demo --courses-listen 127.0.0.1:0 >"$data/serve.out" 2>"$data/serve.err" &
pid=$!
for _ in $(seq 1 300); do grep -q '"service":"courses"' "$data/serve.out" 2>/dev/null && break; sleep 0.1; done
url="$(sed -n 's/.*"service":"courses".*"url":"\([^"]*\)".*/\1/p' "$data/serve.out" | head -n 1)"
[ -n "$url" ] || { cat "$data/serve.err"; echo "the courses service did not start"; exit 1; }
field() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p"; }
workspace="$("$svc" --json --data-dir "$data" courses workspace create --name smoke --plan build | field id)"
key="$("$svc" --json --data-dir "$data" courses key create --workspace "$workspace" | field key)"
"$venv/bin/python" "$root/crates/courses-http/tests/clients/mcp_smoke.py" "$url" "$key"
