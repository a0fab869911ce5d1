#!/usr/bin/env bash
# Starts `svc serve catalog` on a free loopback port with a fresh data dir,
# registers an app and a user, and runs tekore_round.py against it.
# Usage: crates/catalog-http/tests/clients/run-spotipy.sh   (from the repository root)
# Uses CARGO_TARGET_DIR (default target) and the project's ignored .venv.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
venv="${TEKORE_VENV:-$root/.venv/catalog-tekore}"
cargo build --quiet -p svc
svc="$target/debug/svc"
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
if ! "$venv/bin/python" -c "import tekore" 2>/dev/null; then
  "$venv/bin/pip" install -q --disable-pip-version-check "tekore==6.0.0"
fi
data="$(mktemp -d)"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$data"' EXIT
"$svc" --json --data-dir "$data" serve catalog --catalog-listen 127.0.0.1:0 >"$data/serve.out" 2>"$data/serve.err" &
pid=$!
for _ in $(seq 1 300); do grep -q '"service":"catalog"' "$data/serve.out" 2>/dev/null && break; sleep 0.1; done
url="$(sed -n 's/.*"service":"catalog".*"url":"\([^"]*\)".*/\1/p' "$data/serve.out" | head -n 1)"
[ -n "$url" ] || { cat "$data/serve.err"; echo "the catalog did not start"; exit 1; }
app="$("$svc" --json --data-dir "$data" catalog app create --name round --redirect-uri http://127.0.0.1:8765/callback)"
user="$("$svc" --json --data-dir "$data" catalog user create --name round-user)"
field() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p"; }
"$venv/bin/python" "$root/crates/catalog-http/tests/clients/tekore_round.py" "$url" \
  "$(echo "$app" | field client_id)" "$(echo "$app" | field client_secret)" \
  "$(echo "$user" | field username)" "$(echo "$user" | field password)"
