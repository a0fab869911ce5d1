#!/usr/bin/env bash
# The hub's per-project MCP servers against the official MCP client SDK
# (PyPI `mcp`): starts `svc serve hub` with a fresh data dir and a local test
# API the outbound guard is told to allow (SVC_OUTBOUND_ALLOW), makes a
# public and a private project with two versions, mints their MCP tokens
# and runs mcp_hub.py; then the MCP Inspector's command line (npm
# `@modelcontextprotocol/inspector`, into $INSPECTOR_MODULES) lists the tools
# too, when npm is here.
# Usage: crates/hub-http/tests/clients/run-mcp.sh   (from the repository root)
set -euo pipefail
root="$(cd "$(dirname "$0")/../../../.." && pwd)"
here="$root/crates/hub-http/tests/clients"
target="${CARGO_TARGET_DIR:-$root/target}"
venv="${MCP_VENV:-$HOME/.cache/svc-test/venv-mcp}"
cargo build --quiet -p svc
svc="$target/debug/svc"
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
if ! "$venv/bin/python" -c "import mcp" 2>/dev/null; then
  "$venv/bin/pip" install -q --disable-pip-version-check "mcp==2.3.0"
fi
data="$(mktemp -d)"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$data"' EXIT

# The live API call_endpoint reaches: echoes the path and the credential.
api_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
python3 - "$api_port" <<'PY' &
import http.server, json, sys
class Echo(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"path": self.path, "authorization": self.headers.get("Authorization")}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *args): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Echo).serve_forever()
PY
pids+=("$!")

SVC_OUTBOUND_ALLOW=127.0.0.1 "$svc" --json --data-dir "$data" serve hub --no-demo --hub-listen 127.0.0.1:0 >"$data/serve.out" 2>"$data/serve.err" &
pids+=("$!")
for _ in $(seq 1 300); do grep -q '"service":"hub"' "$data/serve.out" 2>/dev/null && break; sleep 0.1; done
url="$(sed -n 's/.*"service":"hub".*"url":"\([^"]*\)".*/\1/p' "$data/serve.out" | head -n 1)"
[ -n "$url" ] || { cat "$data/serve.err"; echo "the hub did not start"; exit 1; }
field() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p"; }
"$svc" --data-dir "$data" hub user create --email mcp@example.com --plan business >/dev/null
pat="$("$svc" --json --data-dir "$data" hub token create --email mcp@example.com --name mcp | field token)"
auth=(-H "Authorization: Bearer $pat")
v2="$data/petstore-2.yaml"
python3 - "$root/bench/petstore.yaml" "$v2" <<'PY'
import sys
text = open(sys.argv[1]).read()
extra = "  /health:\n    get:\n      operationId: health\n      summary: Report health\n      responses:\n        '200':\n          description: healthy\n"
text = text.replace("paths:\n", "security:\n  - bearer: []\npaths:\n" + extra, 1)
text = text.replace("components:\n", "components:\n  securitySchemes:\n    bearer: {type: http, scheme: bearer}\n", 1)
open(sys.argv[2], "w").write(text)
PY
for project in pets:true secret:false; do
  slug="${project%%:*}"; public="${project##*:}"
  curl -sf -o /dev/null "${auth[@]}" -H 'content-type: application/json' \
    -d "{\"name\":\"$slug\",\"slug\":\"$slug\",\"is_public\":$public,\"base_url\":\"http://127.0.0.1:$api_port\"}" "$url/api/v1/projects"
  curl -sf -o /dev/null "${auth[@]}" --data-binary "@$root/bench/petstore.yaml" "$url/api/v1/projects/$slug/versions?label=1"
  curl -sf -o /dev/null "${auth[@]}" --data-binary "@$v2" "$url/api/v1/projects/$slug/versions?label=2"
done
public_token="$(curl -sf -X POST "${auth[@]}" "$url/api/v1/projects/pets/mcp-token" | field mcp_token)"
private_token="$(curl -sf -X POST "${auth[@]}" "$url/api/v1/projects/secret/mcp-token" | field mcp_token)"
"$venv/bin/python" "$here/mcp_hub.py" "$url" "$pat" "$public_token" "$private_token" "http://127.0.0.1:$api_port"

# The MCP Inspector's command line, a second independent client.
if command -v npm >/dev/null; then
  inspector="${INSPECTOR_MODULES:-$HOME/.cache/svc-test/inspector}"
  mkdir -p "$inspector"
  if [ ! -x "$inspector/node_modules/.bin/mcp-inspector" ]; then
    (cd "$inspector" && npm install --no-audit --no-fund --loglevel=error @modelcontextprotocol/inspector@2.12.0 >/dev/null)
  fi
  listed="$("$inspector/node_modules/.bin/mcp-inspector" --cli "$url/api/mcp/secret" --transport http \
    --header "Authorization: Bearer $private_token" --method tools/list)"
  count="$(printf '%s' "$listed" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["tools"]))')"
  [ "$count" = 12 ] || { echo "the MCP Inspector listed $count tools: $listed"; exit 1; }
  echo "mcp inspector: 12 tools listed on the private project with its token"
else
  echo "skipping the MCP Inspector: npm is not installed"
fi
