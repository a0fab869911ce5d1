#!/usr/bin/env bash
# Catalog benchmark over a synthetic library of N tracks (default 100,000).
# Prints
#   1. scan throughput: `svc catalog scan` of the whole library, in files
#      per second, and the scanner's peak memory;
#   2. search latency: p50, p99 and max of /v1/search over a mix of free
#      words, partial words, field filters and year ranges, sent one at a
#      time on a kept-alive connection, and the server's peak memory.
# Target: search p99 under 10 ms.
#
# The library is cheap to make: one tiny WAV (0.1 s of a tone, 8 kHz mono,
# 1.6 KB) copied to N paths `Artist/Album/NN Title.wav`, so artist, album and
# title come from the path (the scan's convention for untagged files) and
# each file is still decoded and analysed. Names are drawn from word lists
# with a fixed seed: 2,000 artists, 10 tracks an album.
#
# Usage: bench/catalog.sh [N] [QUERIES]   (defaults 100000 and 2000)
#        SVC_BENCH_KEEP=1 keeps the data directory (catalog.db) for inspection
#        SVC_BENCH_DATA=dir reuses a kept data directory: no scan, search only
#        CATALOG_DATABASE_URL=postgres://... bench/catalog.sh   for PostgreSQL
#        SVC_BIN=path/to/svc bench/catalog.sh   to use a built binary
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CACHE="${SVC_TEST_CACHE:-$HOME/.cache/svc-test}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/svc-target}"
N="${1:-100000}"
QUERIES="${2:-2000}"
mkdir -p "$CACHE/bench"

if [ -n "${SVC_BIN:-}" ]; then
  svc="$SVC_BIN"
else
  cargo build --release --locked -p svc -q
  svc="$CARGO_TARGET_DIR/release/svc"
fi
library="$CACHE/bench/catalog-library-$N"
data="${SVC_BENCH_DATA:-$(mktemp -d)}"
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  if [ -n "${SVC_BENCH_KEEP:-}${SVC_BENCH_DATA:-}" ]; then echo "data kept in $data"; else rm -rf "$data"; fi
}
trap cleanup EXIT

if [ -z "${SVC_BENCH_DATA:-}" ] && [ ! -f "$library/.complete" ]; then
  echo "writing a synthetic library of $N tracks to $library"
  rm -rf "$library"
  python3 "$ROOT/bench/catalog-library.py" "$library" "$N"
fi

if [ -z "${SVC_BENCH_DATA:-}" ]; then
echo "== scan"
start=$(date +%s.%N)
/usr/bin/time -f "%M" -o "$data/scan.mem" "$svc" --data-dir "$data" catalog scan "$library" 2>"$data/scan.err" >/dev/null \
  || { tail -n 5 "$data/scan.err"; exit 1; }
end=$(date +%s.%N)
python3 - "$N" "$start" "$end" "$(cat "$data/scan.mem")" <<'PY'
import sys
n, start, end, kb = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
secs = end - start
print(f"scanned {n} files in {secs:.1f} s: {n / secs:.0f} files/s; peak memory {kb / 1024:.0f} MB")
PY
fi

echo "== search"
creds="$("$svc" --json --data-dir "$data" catalog app create --name bench --redirect-uri http://127.0.0.1:1/cb)"
"$svc" --json --data-dir "$data" serve catalog --catalog-listen 127.0.0.1:0 --no-demo --catalog-rate-limit 0 \
  >"$data/serve.out" 2>"$data/serve.err" &
server=$!
for _ in $(seq 1 200); do grep -q '"service":"catalog"' "$data/serve.out" 2>/dev/null && break; sleep 0.1; done
listen="$(sed -n 's/.*"listen":"\([^"]*\)".*/\1/p' "$data/serve.out" | head -n 1)"
[ -n "$listen" ] || { cat "$data/serve.err"; echo "the catalog did not start"; exit 1; }
python3 - "$listen" "$creds" "$QUERIES" <<'PY'
import base64, http.client, json, random, sys, time, urllib.parse
host, port = sys.argv[1].rsplit(":", 1)
creds, total = json.loads(sys.argv[2]), int(sys.argv[3])
conn = http.client.HTTPConnection(host, int(port))
basic = base64.b64encode(f"{creds['client_id']}:{creds['client_secret']}".encode()).decode()
conn.request("POST", "/api/token", "grant_type=client_credentials",
             {"Authorization": f"Basic {basic}", "Content-Type": "application/x-www-form-urlencoded"})
token = json.loads(conn.getresponse().read())["access_token"]
rng = random.Random(1)
words = ("night dawn blue river glass ember static velvet hollow silver paper echo lantern copper "
         "meadow signal orbit cinder harbor willow neon marble thunder quiet golden feather tide").split()
KINDS = ("word", "partial word", "two words", "artist: filter", "album year range", "all types")
def query():
    w = rng.choice(words)
    kind = rng.randrange(6)
    if kind == 0: return kind, w, "track"
    if kind == 1: return kind, w[1:4], "track"
    if kind == 2: return kind, f"{w} {rng.choice(words)}", "track"
    if kind == 3: return kind, f"artist:{w} {rng.choice(words)}", "track"
    if kind == 4: return kind, f"{w} year:1990-2030", "album"
    return kind, w, "track,album,artist"
def get(path):
    conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
    r = conn.getresponse(); body = r.read()
    if r.status != 200:
        raise SystemExit(f"{path}: {r.status} {body[:200]!r}")
    return json.loads(body)
for _ in range(50):  # warm up
    _, q, t = query(); get(f"/v1/search?q={urllib.parse.quote(q)}&type={t}&limit=20")
times, hits, by_kind = [], 0, {}
for _ in range(total):
    kind, q, t = query()
    path = f"/v1/search?q={urllib.parse.quote(q)}&type={t}&limit=20"
    start = time.perf_counter()
    body = get(path)
    took = (time.perf_counter() - start) * 1000
    times.append(took)
    by_kind.setdefault(kind, []).append(took)
    hits += sum(v["total"] for v in body.values())
def pick(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]
print(f"{total} searches: p50 {pick(times, 0.50):.2f} ms, p99 {pick(times, 0.99):.2f} ms, max {max(times):.2f} ms "
      f"({hits / total:.0f} matches a query on average); target p99 < 10 ms")
for kind, values in sorted(by_kind.items()):
    print(f"  {KINDS[kind]:<17} p50 {pick(values, 0.50):7.2f} ms  p99 {pick(values, 0.99):7.2f} ms  ({len(values)} queries)")
PY
# The store maps the database file into each pooled connection: its pages
# count in the resident size once per mapping but belong to the operating
# system's page cache, so the proportional set (each page counted once) is
# shown beside the peak, split into private memory and file pages.
peak="$(awk '/VmHWM/ {print $2}' "/proc/$server/status")"
awk -v peak="$peak" '/^Pss_Anon/ {anon = $2} /^Pss_File/ {file = $2}
     END {printf "server peak resident size %.0f MB; now %.0f MB private and %.0f MB of mapped files (each page once)\n", peak / 1024, anon / 1024, file / 1024}' \
  "/proc/$server/smaps_rollup"
