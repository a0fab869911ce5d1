#!/usr/bin/env bash
# Webhook inboxes against the senders' own libraries (see inbox_senders.py):
# PyPI `stripe`, `slack-sdk` and `standardwebhooks` into $INBOX_VENV, npm
# `@octokit/webhooks-methods` into $INBOX_NPM (GitHub is skipped without
# npm), on a hub started with its demo (a Business account).
# Usage: crates/hub-http/tests/clients/run-inbox-senders.sh   (from the repository root)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
venv="${INBOX_VENV:-$HOME/.cache/svc-test/venv-inbox}"
npm_dir="${INBOX_NPM:-$HOME/.cache/svc-test/inbox-npm}"
command -v python3 >/dev/null || { echo "skipping the inbox senders' check: python3 is not installed"; exit 0; }
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
if ! "$venv/bin/python" -c "import stripe, slack_sdk, standardwebhooks" 2>/dev/null; then
  "$venv/bin/pip" install -q --disable-pip-version-check "stripe==16.*" "slack-sdk==3.*" "standardwebhooks==1.*"
fi
octokit=""
if command -v npm >/dev/null && command -v node >/dev/null; then
  mkdir -p "$npm_dir"
  if [ ! -d "$npm_dir/node_modules/@octokit/webhooks-methods" ]; then
    (cd "$npm_dir" && npm install --silent --no-audit --no-fund "@octokit/webhooks-methods@6" >/dev/null)
  fi
  # Beside its node_modules, so the ES module import resolves there.
  cp "$here/inbox_octokit.mjs" "$npm_dir/"
  octokit="$npm_dir"
fi
cargo build --quiet -p svc
data="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$data"' EXIT
# Replays go to a receiver on loopback, which the outbound guard refuses
# unless allowed.
SVC_OUTBOUND_ALLOW_WEBHOOKS=127.0.0.1 "$target/debug/svc" --json --data-dir "$data" serve hub \
  --hub-listen 127.0.0.1:0 >"$data/out" 2>"$data/err" &
pid=$!
for _ in $(seq 1 300); do grep -q '"service":"hub"' "$data/out" 2>/dev/null && break; sleep 0.1; done
url="$(sed -n 's/.*"service":"hub".*"url":"\([^"]*\)".*/\1/p' "$data/out" | head -n 1)"
token="$(sed -n 's/.*"token":"\(svc_pat_[^"]*\)".*/\1/p' "$data/out" | head -n 1)"
[ -n "$url" ] && [ -n "$token" ] || { cat "$data/err"; echo "the hub did not start"; exit 1; }
"$venv/bin/python" "$here/inbox_senders.py" "$url" "$token" "$octokit" || { tail -n 20 "$data/err"; exit 1; }
