#!/usr/bin/env bash
# The browser checks of the hosted docs (see run.mjs) in headless Chromium:
# pages without JavaScript, Try-It against the mock, a GraphQL reference, and
# the widget embedded in a page of another origin with `service:rescan`.
# Screenshots are kept in $DOCS_ARTIFACTS (default target/docs-browser).
#
# Installs what it needs like the courses checks do (Debian's chromium, and
# playwright-core from the same pinned package.json into $BROWSER_MODULES,
# default ~/.cache/svc-test/browser); exits 0 with a "skipping" line when
# Chromium, Node.js or npm cannot be had.
# Usage: crates/hub-http/tests/browser/run-browser.sh   (from the repository root)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
modules="${BROWSER_MODULES:-$HOME/.cache/svc-test/browser}"
chromium="${CHROMIUM:-/usr/bin/chromium}"
artifacts="${DOCS_ARTIFACTS:-$target/docs-browser}"
packages="$here/package.json"
# The docs checks have their own packages (playwright-core, axe-core,
# lighthouse, and Scalar's and Redoc's builds for bench/docs-peers.sh),
# in a folder of their own so the courses checks' folder is left alone.
modules="$modules/docs"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo -n "$@"; else return 1; fi; }
if [ ! -x "$chromium" ]; then
  echo "installing Debian's chromium"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1 \
    || { as_root apt-get update -q >/dev/null 2>&1 && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1; } || true
fi
for tool in "$chromium" node npm curl; do
  if ! command -v "$tool" >/dev/null; then
    echo "skipping the docs browser checks: $tool is not installed and could not be installed here"
    exit 0
  fi
done
mkdir -p "$modules" "$artifacts"
if ! cmp -s "$packages" "$modules/package.json" || [ ! -d "$modules/node_modules/playwright-core" ]; then
  cp "$packages" "$modules/package.json"
  (cd "$modules" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
fi

cargo build --quiet -p svc
svc="$target/debug/svc"
data="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$data"' EXIT
# Loopback is allowed so the Try-It relay can reach the local test API.
SVC_OUTBOUND_ALLOW=127.0.0.1 "$svc" --json --data-dir "$data" serve hub --hub-listen 127.0.0.1:0 >"$data/serve.out" 2>"$data/serve.err" &
pid=$!
for _ in $(seq 1 300); do grep -q '"service":"hub"' "$data/serve.out" 2>/dev/null && break; sleep 0.1; done
listen="$(sed -n 's/.*"service":"hub".*"listen":"\([^"]*\)".*/\1/p' "$data/serve.out" | head -n 1)"
url="http://$listen"
token="$(sed -n 's/.*"token":"\(svc_pat_[^"]*\)".*/\1/p' "$data/serve.out" | head -n 1)"
[ -n "$listen" ] && [ -n "$token" ] || { cat "$data/serve.out" "$data/serve.err"; echo "the hub did not start"; exit 1; }
# The widget is a Pro feature.
"$svc" --json --data-dir "$data" hub user set-plan --email demo@example.com --plan pro >/dev/null
curl -sf -H "Authorization: Bearer $token" -H 'content-type: application/json' \
  --data '{"name":"Books","slug":"books","is_public":true}' "$url/api/v1/projects" >/dev/null
curl -sf -H "Authorization: Bearer $token" --data-binary $'type Query { book(id: ID!): Book books: [Book!]! }\ntype Mutation { addBook(title: String!): Book }\ntype Book { id: ID! title: String! }\n' \
  "$url/api/v1/projects/books/versions?label=1" >/dev/null
# GitHub's REST description (13 MB), from the fetched spec corpus or the
# benchmark's copy when either is present; the checks say when it is not.
github=""
for candidate in "${GITHUB_SPEC:-}" "${SVC_TEST_CACHE:-$HOME/.cache/svc-test}/spec-corpus/flat/octokit-openapi--api.github.com.json" \
  "${SVC_TEST_CACHE:-$HOME/.cache/svc-test}/bench/api.github.com.json"; do
  if [ -n "$candidate" ] && [ -f "$candidate" ]; then github="$candidate"; break; fi
done
if [ -n "$github" ]; then
  curl -sf -H "Authorization: Bearer $token" -H 'content-type: application/json' \
    --data '{"name":"GitHub","slug":"github","is_public":true}' "$url/api/v1/projects" >/dev/null
  curl -sf -H "Authorization: Bearer $token" --data-binary "@$github" "$url/api/v1/projects/github/versions?label=v3" >/dev/null
  export GITHUB_DOCS=1
else
  echo "note: GitHub's REST description is not on this machine (fetch the spec corpus); its browser checks are skipped"
fi
status=0
HUB_TOKEN="$token" BROWSER_MODULES="$modules" CHROMIUM="$chromium" node "$here/run.mjs" "$url" "$artifacts" || status=1
HUB_TOKEN="$token" DOCS_MODULES="$modules" CHROMIUM="$chromium" node "$here/design.mjs" "$url" "$artifacts" || status=1
if [ "${DOCS_LIGHTHOUSE:-1}" = 1 ]; then
  DOCS_MODULES="$modules" CHROMIUM="$chromium" node "$here/lighthouse.mjs" "$url" "$artifacts" || status=1
fi
exit "$status"
