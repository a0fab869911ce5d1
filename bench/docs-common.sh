# Shared by bench/docs.sh and bench/docs-peers.sh (sourced, not run):
# fetches GitHub's REST description when no spec is given, finds or builds
# the binary, and starts a hub whose public project `github` holds the
# document as version `bench`. Sets: spec, svc, data, pid, base.
# Expects ROOT, CACHE and CARGO_TARGET_DIR, and the spec argument in $1.

mkdir -p "$CACHE/bench"
spec="${1:-}"
if [ -z "$spec" ]; then
  spec="$CACHE/bench/api.github.com.json"
  if [ ! -f "$spec" ]; then
    echo "fetching @octokit/openapi from the npm registry"
    (cd "$CACHE/bench" && npm pack --silent @octokit/openapi@23.0.2 >/dev/null && tar -xzf octokit-openapi-23.0.2.tgz package/generated/api.github.com.json && mv package/generated/api.github.com.json . && rm -rf package octokit-openapi-23.0.2.tgz)
  fi
fi

svc="${SVC_BIN:-}"
if [ -z "$svc" ]; then
  cargo build --release --locked -p svc -q
  svc="$CARGO_TARGET_DIR/release/svc"
fi

data="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$data"' EXIT
"$svc" --data-dir "$data" hub user create --email bench@example.com --plan business >/dev/null
token="$("$svc" --json --data-dir "$data" hub token create --email bench@example.com --name bench | sed -n 's/.*"token":"\([^"]*\)".*/\1/p')"
# The sentence model's line says when a document's sections are encoded.
RUST_LOG="${RUST_LOG:-warn,hub_core::semantic=info}" "$svc" --json --data-dir "$data" serve hub --no-demo --hub-listen 127.0.0.1:0 >"$data/out" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q '"service":"hub"' "$data/out" 2>/dev/null && break; sleep 0.1; done
base="http://$(sed -n 's/.*"service":"hub".*"listen":"\([^"]*\)".*/\1/p' "$data/out" | head -n 1)"
curl -sf -o /dev/null -H "Authorization: Bearer $token" -H 'content-type: application/json' -d '{"name":"GitHub","slug":"github","is_public":true}' "$base/api/v1/projects"
curl -sf -o /dev/null -H "Authorization: Bearer $token" --data-binary "@$spec" "$base/api/v1/projects/github/versions?label=bench"
