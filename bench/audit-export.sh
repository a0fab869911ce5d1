#!/usr/bin/env bash
# The audit log's CSV export of 1,000,000 rows: rows per second and the
# server's resident memory before, at its peak during the export, and the
# growth (target: constant memory, under 50 MB of growth).
#
# Usage: bench/audit-export.sh [ROWS]   (default 1000000; SVC_BIN=path uses
#        that binary instead of a release build)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/svc-target}"
rows="${1:-1000000}"
svc="${SVC_BIN:-}"
if [ -z "$svc" ]; then
  cargo build --release --locked -p svc -q
  svc="$CARGO_TARGET_DIR/release/svc"
fi
data="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$data"' EXIT

start() {
  RUST_LOG=warn "$svc" --json --data-dir "$data" serve hub --hub-listen 127.0.0.1:0 >"$data/out" 2>"$data/err" &
  pid=$!
  for _ in $(seq 1 300); do grep -q '"service":"hub"' "$data/out" 2>/dev/null && break; sleep 0.1; done
}
start
token="$(sed -n 's/.*"token":"\(svc_pat_[^"]*\)".*/\1/p' "$data/out" | head -n 1)"
email="$(sed -n 's/.*"email":"\([^"]*\)".*/\1/p' "$data/out" | head -n 1)"
[ -n "$token" ] || { cat "$data/err"; echo "the hub did not start"; exit 1; }
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""

echo "writing $rows audit rows for $email"
python3 - "$data/hub.db" "$email" "$rows" <<'PY'
import json, sqlite3, sys, uuid
db, email, total = sqlite3.connect(sys.argv[1]), sys.argv[2], int(sys.argv[3])
(owner,) = db.execute("SELECT id FROM users WHERE email = ?", (email,)).fetchone()
base = 1_700_000_000_000
actions = ["PROJECT_UPDATED", "SPEC_UPLOADED", "TOKEN_CREATED", "=HYPERLINK(\"x\")"]
batch = []
for i in range(total):
    meta = json.dumps({"source": "api", "name": f"Project {i % 97}", "fields": ["name"]})
    batch.append((str(uuid.UUID(int=i + 1)), owner, owner, actions[i % 4], "project", f"p{i % 1000}", f"p{i % 1000}", meta, base + i))
    if len(batch) == 50_000:
        db.executemany("INSERT INTO audit_events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", batch)
        batch.clear()
db.executemany("INSERT INTO audit_events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", batch)
db.commit()
PY

start
base="http://$(sed -n 's/.*"service":"hub".*"listen":"\([^"]*\)".*/\1/p' "$data/out" | head -n 1)"
# Resident memory in all, and its anonymous part (the process's own heap:
# what a growing export would show). The rest is the database file mapped
# by SQLite (`mmap_size`, 256 MiB), pages the kernel shares and reclaims.
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"; }
anon() { awk '/^RssAnon:/ { print $2 }' "/proc/$pid/status"; }
before="$(rss)"
before_anon="$(anon)"
( while kill -0 "$pid" 2>/dev/null; do rss >>"$data/rss" 2>/dev/null || true; anon >>"$data/anon" 2>/dev/null || true; sleep 0.05; done ) &
sampler=$!
began="$(date +%s.%N)"
lines="$(curl -sf -H "Authorization: Bearer $token" "$base/api/audit/export.csv" | wc -l)"
ended="$(date +%s.%N)"
kill "$sampler" 2>/dev/null || true
peak="$(sort -n "$data/rss" | tail -n 1)"
peak_anon="$(sort -n "$data/anon" | tail -n 1)"
secs="$(echo "$ended - $began" | bc -l)"
printf 'exported %d lines (%d rows and the header) in %.2f s: %.0f rows/s\n' "$lines" "$((lines - 1))" "$secs" "$(echo "($lines - 1) / $secs" | bc -l)"
printf 'resident memory: %.1f MB before, %.1f MB at the peak (%.1f MB more, the mapped database file included)\n' \
  "$(echo "$before / 1024" | bc -l)" "$(echo "$peak / 1024" | bc -l)" "$(echo "($peak - $before) / 1024" | bc -l)"
printf 'anonymous memory (the heap): %.1f MB before, %.1f MB at the peak, growth %.1f MB (target: under 50 MB)\n' \
  "$(echo "$before_anon / 1024" | bc -l)" "$(echo "$peak_anon / 1024" | bc -l)" "$(echo "($peak_anon - $before_anon) / 1024" | bc -l)"
