#!/usr/bin/env bash
# Three nodes behind nginx on one PostgreSQL, one Redis and one S3-compatible
# store, on this machine, under mixed load and faults (issue 32):
#
#   1. scaling: authenticated API reads with wrk against one node, then
#      against three nodes behind nginx, with each node's share of the CPU;
#   2. limits: a burst of 400 mock requests from 400 client addresses and
#      100 from one address, through nginx across the three nodes;
#   3. faults: mixed load (pushes, promotions, reads, mock traffic, catalog
#      reads, course completions, concurrent override creations) while a
#      node is killed with SIGKILL and restarted every few seconds and Redis
#      is restarted once;
#   4. checks: every acknowledged write present (versions in the database,
#      their documents in the bucket, completions), one default version per
#      project, the override cap, each scheduled job once per period, the
#      limits within 5 % of the seed's.
#
# It installs what is missing, idempotently: PostgreSQL, Redis, nginx and
# wrk from Debian's packages, moto[server] (the S3-compatible server) from
# PyPI into a virtual environment under $SVC_BENCH_CACHE. A PostgreSQL
# already listening on 127.0.0.1:5432 is used as it is (fresh databases);
# Redis, moto and nginx are always its own, on private ports.
#
# Environment: SVC_BIN (a built binary; default: cargo build --release),
# CLUSTER_SECONDS (the fault phase, default 40), KILL_EVERY (seconds, 5).
# Exit status 0 only when every check holds.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${SVC_BENCH_CACHE:-$HOME/.cache/svc-bench}"
LOAD_SECONDS="${CLUSTER_SECONDS:-40}"
KILL_EVERY="${KILL_EVERY:-5}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/svc-cluster.XXXXXX")"
mkdir -p "$CACHE"

say() { printf '\n==> %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi; }
port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }
APT_UPDATED=""
apt_install() {
  if [ -z "$APT_UPDATED" ]; then as_root apt-get update -q >/dev/null; APT_UPDATED=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null
}
need() { # need COMMAND PACKAGE
  command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || { echo "installing $2 from Debian"; apt_install "$2"; }
}
wait_for() { # wait_for URL SECONDS
  local deadline=$((SECONDS + $2))
  until curl -fsS -o /dev/null "$1" 2>/dev/null; do
    [ "$SECONDS" -lt "$deadline" ] || { echo "no answer from $1 within $2 s" >&2; return 1; }
    sleep 0.2
  done
}

PIDS=()
cleanup() {
  set +e
  for i in 1 2 3; do [ -f "$WORK/node$i.pid" ] && kill -9 "$(cat "$WORK/node$i.pid")" 2>/dev/null; done
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  [ -n "${REDIS_PID:-}" ] && kill "$REDIS_PID" 2>/dev/null
  if [ -n "${PG_STARTED:-}" ]; then as_root runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast stop >/dev/null 2>&1 || "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast stop >/dev/null 2>&1; fi
  if [ -n "${PG_ADMIN:-}" ] && [ -n "${RUN:-}" ]; then
    for db in hub catalog courses; do psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS cluster_${db}_$RUN WITH (FORCE)" >/dev/null 2>&1; done
  fi
  wait 2>/dev/null
  [ -z "${KEEP_WORK:-}" ] && rm -rf "$WORK"
}
trap cleanup EXIT

# --- tools ------------------------------------------------------------------
say "tools"
need curl curl
need psql postgresql-client
need nginx nginx
need wrk wrk
need redis-server redis-server
command -v python3 >/dev/null || apt_install python3
python3 -c 'import venv' 2>/dev/null || apt_install python3-venv
VENV="$CACHE/venv"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c 'import moto' 2>/dev/null || "$VENV/bin/pip" install -q --disable-pip-version-check 'moto[server]'
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"

if [ -z "${SVC_BIN:-}" ]; then
  say "building the release binary"
  (cd "$ROOT" && cargo build --release --locked -p svc)
  SVC_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/svc"
fi

# --- PostgreSQL ---------------------------------------------------------------
RUN="$$"
if port_open 127.0.0.1 5432; then
  PG_ADMIN="postgres://postgres@127.0.0.1:5432/postgres"
else
  PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  [ -n "$PG_BIN" ] || { apt_install postgresql; PG_BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"; }
  PG_DATA="$CACHE/pg/data"; mkdir -p "$CACHE/pg"
  run=()
  if [ "$(id -u)" = 0 ]; then id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres; chown -R postgres "$CACHE/pg"; chmod o+x "$CACHE" "$(dirname "$CACHE")" 2>/dev/null || true; run=(runuser -u postgres --); fi
  [ -f "$PG_DATA/PG_VERSION" ] || "${run[@]}" "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --auth=trust >/dev/null
  "${run[@]}" "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$CACHE/pg/server.log" -w \
    -o "-p 54330 -k $CACHE/pg -c listen_addresses=127.0.0.1 -c max_connections=400" start >/dev/null
  PG_STARTED=1
  PG_ADMIN="postgres://postgres@127.0.0.1:54330/postgres"
fi
PG_BASE="${PG_ADMIN%/*}"
for db in hub catalog courses; do psql "$PG_ADMIN" -qc "CREATE DATABASE cluster_${db}_$RUN" >/dev/null; done
HUB_DB="$PG_BASE/cluster_hub_$RUN"

# --- Redis, the S3-compatible store ----------------------------------------------
REDIS_PORT=16379
start_redis() {
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK" >"$WORK/redis.log" 2>&1 &
  REDIS_PID=$!
  for _ in $(seq 50); do port_open 127.0.0.1 "$REDIS_PORT" && return; sleep 0.1; done
  echo "redis did not start" >&2; return 1
}
start_redis
"$VENV/bin/moto_server" -H 127.0.0.1 -p 15000 >"$WORK/moto.log" 2>&1 &
PIDS+=($!)
wait_for http://127.0.0.1:15000/ 30
BUCKET=svc-bench
curl -fsS -X PUT "http://127.0.0.1:15000/$BUCKET" >/dev/null

# --- the nodes ------------------------------------------------------------------
export HUB_DATABASE_URL="$HUB_DB" CATALOG_DATABASE_URL="$PG_BASE/cluster_catalog_$RUN" COURSES_DATABASE_URL="$PG_BASE/cluster_courses_$RUN"
export SVC_REDIS_URL="redis://127.0.0.1:$REDIS_PORT" SVC_BLOB_URL="s3://$BUCKET/run$RUN"
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench AWS_REGION=us-east-1 AWS_ENDPOINT_URL=http://127.0.0.1:15000
export SVC_TRUSTED_PROXIES=127.0.0.1 SVC_SECRET_KEY="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export CRON_SECRET=cluster-bench SVC_NO_DEMO=1 SVC_COURSES_RATE_LIMIT=1000000 SVC_CATALOG_RATE_LIMIT=0
export SVC_PUBLIC_URL_HUB=http://127.0.0.1:18000 SVC_PUBLIC_URL_MOCK=http://127.0.0.1:18001 RUST_LOG=warn

start_node() { # start_node I
  local i=$1
  mkdir -p "$WORK/node$i"
  "$SVC_BIN" serve --data-dir "$WORK/node$i" \
    --hub-listen "127.0.0.1:1810$i" --mock-listen "127.0.0.1:1811$i" \
    --catalog-listen "127.0.0.1:1812$i" --courses-listen "127.0.0.1:1813$i" >>"$WORK/node$i.log" 2>&1 &
  echo $! >"$WORK/node$i.pid"
  disown $!   # killed on purpose: no job-control notice
}
node_ready() { wait_for "http://127.0.0.1:1810$1/readyz" 60 && wait_for "http://127.0.0.1:1812$1/readyz" 60 && wait_for "http://127.0.0.1:1813$1/readyz" 60; }

say "three nodes on PostgreSQL, Redis and S3 ($SVC_BLOB_URL)"
start_node 1; node_ready 1   # the first start migrates the three databases
start_node 2; start_node 3; node_ready 2; node_ready 3

upstream() { # upstream NAME PORT_PREFIX
  printf 'upstream %s {\n' "$1"
  for i in 1 2 3; do printf '    server 127.0.0.1:%s%s max_fails=1 fail_timeout=2s;\n' "$2" "$i"; done
  printf '    keepalive 32;\n}\n'
}
{
  echo "worker_processes 1; pid $WORK/nginx.pid; error_log $WORK/nginx-error.log warn;"
  echo "events { worker_connections 4096; }"
  echo "http {"
  echo "  access_log off; client_body_temp_path $WORK/nginx-body; proxy_temp_path $WORK/nginx-proxy;"
  echo "  fastcgi_temp_path $WORK/nginx-fcgi; uwsgi_temp_path $WORK/nginx-uwsgi; scgi_temp_path $WORK/nginx-scgi;"
  echo "  map \$http_upgrade \$svc_connection { default upgrade; '' ''; }"
  upstream svc_hub 1810; upstream svc_hub_mock 1811; upstream svc_catalog 1812; upstream svc_courses 1813
  for pair in 18000:svc_hub 18001:svc_hub_mock 18002:svc_catalog 18003:svc_courses; do
    echo "  server { listen 127.0.0.1:${pair%%:*}; client_max_body_size 60m;"
    echo "    location / { proxy_pass http://${pair#*:}; include $ROOT/deploy/svc-proxy.conf; } }"
  done
  echo "}"
} >"$WORK/nginx.conf"
"$NGINX" -p "$WORK" -c "$WORK/nginx.conf" -g 'daemon off;' &
PIDS+=($!)
wait_for http://127.0.0.1:18000/healthz 10
LB=http://127.0.0.1:18000

# --- setup through the API ----------------------------------------------------------------
say "setup"
json() { "$VENV/bin/python" -c "import json,sys; print(json.load(sys.stdin)$1)"; }
svc() { "$SVC_BIN" --data-dir "$WORK/node1" --json "$@"; }
svc hub user create --email bench@example.com --plan business >/dev/null
TOKEN="$(svc hub token create --email bench@example.com --name bench | json "['token']")"
SPEC='openapi: 3.0.3
info: {title: Cluster, version: "1"}
paths:
  /a:
    get:
      responses:
        "200": {description: ok, content: {application/json: {example: {n: 1}}}}'
PROJECTS=()
for name in p0 p1 p2 p3 limits-wide limits-narrow cap; do
  curl -fsS -o /dev/null -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -d "{\"name\": \"$name\", \"is_public\": true}" "$LB/api/v1/projects"
  for label in base-0 base-1 base-2; do
    curl -fsS -o /dev/null -H "Authorization: Bearer $TOKEN" --data-binary "$SPEC" \
      "$LB/api/v1/projects/$name/versions?label=$label"
  done
  case "$name" in p*) PROJECTS+=("\"$name\"") ;; esac
done
APP="$(svc catalog app create --name bench --redirect-uri http://127.0.0.1/cb)"
CLIENT_ID="$(echo "$APP" | json "['client_id']")"; CLIENT_SECRET="$(echo "$APP" | json "['client_secret']")"
CATALOG_TOKEN="$(curl -sS -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials http://127.0.0.1:18002/api/token \
  | json ".get('access_token', '')" || true)"
[ -n "$CATALOG_TOKEN" ] || echo "  no client-credentials token from the catalog: catalog reads are left out of the load"
WORKSPACE="$(svc courses workspace create --name bench --plan scale | json "['id']")"
COURSES_KEY="$(svc courses key create --workspace "$WORKSPACE" | json "['key']")"
courses() { curl -fsS -H "Authorization: Bearer $COURSES_KEY" -H 'Content-Type: application/json' "$@"; }
COURSE="$(courses -d '{"title": "Cluster", "passingScore": null, "screens": [{"title": "One", "blocks": [{"type": "text", "text": "Hello"}]}]}' \
  http://127.0.0.1:18003/v1/courses | json "['id']")"
courses -o /dev/null -X POST "http://127.0.0.1:18003/v1/courses/$COURSE/publish"
courses -o /dev/null -d "$("$VENV/bin/python" -c 'import json; print(json.dumps({"identities": [{"externalId": f"learner-{i}", "name": f"L{i}"} for i in range(100)]}))')" \
  http://127.0.0.1:18003/v1/identities/bulk
IDENTITIES="$(courses "http://127.0.0.1:18003/v1/identities?limit=100" | json "['data']")"
PROJECT_LIST="$(IFS=,; echo "${PROJECTS[*]}")"
"$VENV/bin/python" - "$WORK/state.json" <<PY
import json, sys
json.dump({"hub_token": "$TOKEN", "projects": [$PROJECT_LIST], "labels": ["base-0", "base-1", "base-2"],
           "mock_project": "p0", "cap_project": "cap", "catalog_token": "$CATALOG_TOKEN",
           "courses_key": "$COURSES_KEY", "course_id": "$COURSE",
           "identities": [i["id"] for i in $IDENTITIES]}, open(sys.argv[1], "w"))
PY

# --- 1. scaling -------------------------------------------------------------------------------
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
measure() { # measure LABEL URL: wrk 10 s, with each node's CPU ticks
  local before=() after=() total=0 i out
  for i in 1 2 3; do before[$i]="$(cpu_ticks "$(cat "$WORK/node$i.pid")")"; done
  out="$(wrk -t2 -c32 -d10s --latency -H "Authorization: Bearer $TOKEN" "$2/api/v1/projects/p0")"
  for i in 1 2 3; do after[$i]="$(cpu_ticks "$(cat "$WORK/node$i.pid")")"; total=$((total + after[i] - before[i])); done
  local rps p50 p99
  rps="$(echo "$out" | awk '/Requests\/sec/ {print $2}')"
  p50="$(echo "$out" | awk '$1 == "50%" {print $2}')"; p99="$(echo "$out" | awk '$1 == "99%" {print $2}')"
  local shares=""
  for i in 1 2 3; do
    shares="$shares node$i $(awk -v d=$((after[i] - before[i])) -v t=$total 'BEGIN { printf "%.0f%%", t ? 100 * d / t : 0 }')"
  done
  printf '%-28s %10s req/s  p50 %-8s p99 %-8s CPU:%s (%s ticks)\n' "$1" "$rps" "$p50" "$p99" "$shares" "$total"
}
say "1. scaling: GET /api/v1/projects/p0 with wrk (2 threads, 32 connections, 10 s)"
measure "one node (direct)" http://127.0.0.1:18101
measure "three nodes behind nginx" "$LB"

# --- 2. limits --------------------------------------------------------------------------------
say "2. limits through nginx across three nodes (the seed: 120 per project, 60 per address, per minute)"
WIDE="$("$VENV/bin/python" "$ROOT/bench/cluster_load.py" burst --base http://127.0.0.1:18001 --path /mock/limits-wide/a --count 400 --clients 400)"
NARROW="$("$VENV/bin/python" "$ROOT/bench/cluster_load.py" burst --base http://127.0.0.1:18001 --path /mock/limits-narrow/a --count 100 --clients 1)"
echo "per project: $WIDE"
echo "per address: $NARROW"
WIDE_PASSED="$(echo "$WIDE" | json "['passed']")"; NARROW_PASSED="$(echo "$NARROW" | json "['passed']")"

# --- 3. faults --------------------------------------------------------------------------------
say "3. mixed load for ${LOAD_SECONDS} s through nginx; a node killed with SIGKILL every ${KILL_EVERY} s and restarted; Redis restarted once"
ACKS="$WORK/acks.jsonl"; : >"$ACKS"
"$VENV/bin/python" "$ROOT/bench/cluster_load.py" mixed --base "$LB" --mock-base http://127.0.0.1:18001 \
  --catalog-base http://127.0.0.1:18002 --courses-base http://127.0.0.1:18003 \
  --state "$WORK/state.json" --acks "$ACKS" --phase steady --seconds 10 >"$WORK/steady.json"
"$VENV/bin/python" "$ROOT/bench/cluster_load.py" mixed --base "$LB" --mock-base http://127.0.0.1:18001 \
  --catalog-base http://127.0.0.1:18002 --courses-base http://127.0.0.1:18003 \
  --state "$WORK/state.json" --acks "$ACKS" --phase faults --seconds "$LOAD_SECONDS" >"$WORK/faults.json" &
LOAD_PID=$!
"$VENV/bin/python" "$ROOT/bench/cluster_load.py" overrides --base "$LB" --state "$WORK/state.json" --count 60 >"$WORK/overrides.json" &
OVERRIDES_PID=$!
KILLS=0; REDIS_RESTARTED=""
START=$SECONDS
while kill -0 "$LOAD_PID" 2>/dev/null; do
  sleep "$KILL_EVERY"
  kill -0 "$LOAD_PID" 2>/dev/null || break
  victim=$((KILLS % 3 + 1))
  kill -9 "$(cat "$WORK/node$victim.pid")" 2>/dev/null || true
  KILLS=$((KILLS + 1))
  sleep 1
  start_node "$victim"
  if [ -z "$REDIS_RESTARTED" ] && [ $((SECONDS - START)) -ge $((LOAD_SECONDS / 2)) ]; then
    kill "$REDIS_PID"; wait "$REDIS_PID" 2>/dev/null || true
    sleep 1; start_redis; REDIS_RESTARTED=1
    echo "  Redis restarted at $((SECONDS - START)) s"
  fi
done
wait "$LOAD_PID"; wait "$OVERRIDES_PID"
for i in 1 2 3; do node_ready "$i"; done
echo "  $KILLS nodes killed with SIGKILL and restarted"

# --- 5 (before the checks, which print last): blobs out of the bucket and back -------------
say "5. blobs: the bucket to a directory (interrupted after 20, resumed), then to a new prefix of the bucket"
BACK="$WORK/blobs-back"
svc admin migrate-blobs --service hub --from "$SVC_BLOB_URL" --to "file://$BACK" --stop-after 20 >"$WORK/migrate-1.json"
svc admin migrate-blobs --service hub --from "$SVC_BLOB_URL" --to "file://$BACK" >"$WORK/migrate-2.json"
svc admin migrate-blobs --service hub --from "file://$BACK" --to "s3://$BUCKET/back$RUN" >"$WORK/migrate-3.json"
echo "  interrupted: $(cat "$WORK/migrate-1.json")"
echo "  resumed:     $(cat "$WORK/migrate-2.json")"
echo "  and back:    $(cat "$WORK/migrate-3.json")"
MIGRATION_BAD=0
while read -r sha; do
  file="$BACK/${sha:0:2}/${sha:2}"
  if [ ! -f "$file" ] || [ "$(sha256sum "$file" | cut -d' ' -f1)" != "$sha" ]; then MIGRATION_BAD=$((MIGRATION_BAD + 1)); fi
done < <(psql "$HUB_DB" -At -c "SELECT DISTINCT spec_sha256 FROM versions")
echo "  versions whose document is missing or differs after the round trip: $MIGRATION_BAD"
export MIGRATION_BAD

# --- 4. checks --------------------------------------------------------------------------------
say "4. checks"
"$VENV/bin/python" - "$WORK" "$HUB_DB" "$COURSES_DATABASE_URL" "$CATALOG_DATABASE_URL" "$BUCKET" "run$RUN" "$WIDE_PASSED" "$NARROW_PASSED" <<'PY'
import json, subprocess, sys
work, hub_db, courses_db, catalog_db, bucket, prefix, wide, narrow = sys.argv[1:]
wide, narrow = int(wide), int(narrow)

def sql(db, query):
    out = subprocess.run(["psql", db, "-At", "-F", "\t", "-c", query], check=True, capture_output=True, text=True).stdout
    return [line.split("\t") for line in out.splitlines() if line]

def table(report):
    for kind, k in report["kinds"].items():
        print(f"  {report['phase']:<7} {kind:<11} {k['per_sec']:>8} req/s  p50 {k['p50_ms']:>7} ms  p99 {k['p99_ms']:>8} ms  "
              f"ok {k['ok']:>6}  errors {k['errors']:>4}  limited {k['limited']:>4}")
    print(f"  {report['phase']:<7} {'all':<11} {report['per_sec']:>8} req/s over {report['seconds']} s")

print("throughput, p50, p99 and errors per phase (errors under faults are requests to a killed node: none was acknowledged)")
for phase in ("steady", "faults"):
    table(json.load(open(f"{work}/{phase}.json")))

acks = [json.loads(line) for line in open(f"{work}/acks.jsonl")]
pushes = [a for a in acks if a["kind"] == "push"]
completions = [a for a in acks if a["kind"] == "completion"]
problems = []
stored = {(p, l): s for p, l, s in sql(hub_db, "SELECT p.slug, v.label, v.spec_sha256 FROM versions v JOIN projects p ON p.id = v.project_id")}
lost_pushes = [a for a in pushes if stored.get((a["project"], a["label"])) != a["sha"]]
import boto3  # installed with moto
s3 = boto3.client("s3", endpoint_url="http://127.0.0.1:15000", region_name="us-east-1",
                  aws_access_key_id="bench", aws_secret_access_key="bench")
in_bucket = set()
for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=f"{prefix}/hub/"):
    for item in page.get("Contents", []):
        parts = item["Key"].split("/")
        in_bucket.add(parts[-2] + parts[-1])
missing_blobs = sorted({a["sha"] for a in pushes} - in_bucket)
ids = [a["id"] for a in completions if a.get("id")]
found = set()
for start in range(0, len(ids), 500):
    chunk = ",".join("'" + i.replace("'", "") + "'" for i in ids[start:start + 500])
    found |= {row[0] for row in sql(courses_db, f"SELECT id FROM completions WHERE id IN ({chunk})")}
lost_completions = [i for i in ids if i not in found]
lost = len(lost_pushes) + len(missing_blobs) + len(lost_completions)
print(f"acknowledged writes: {len(pushes)} pushes ({len({a['sha'] for a in pushes})} distinct documents), {len(completions)} completions, "
      f"{sum(a['kind'] == 'promote' for a in acks)} promotions")
print(f"lost acknowledged writes: {lost} (versions {len(lost_pushes)}, documents missing from the bucket {len(missing_blobs)}, completions {len(lost_completions)})")

broken = []
bad_defaults = sql(hub_db, "SELECT p.slug, COUNT(*) FILTER (WHERE v.is_default) FROM projects p JOIN versions v ON v.project_id = p.id GROUP BY p.slug HAVING COUNT(*) FILTER (WHERE v.is_default) <> 1")
if bad_defaults:
    broken.append(f"projects without exactly one default version: {bad_defaults}")
overrides = json.load(open(f"{work}/overrides.json"))
(cap_rows,), = sql(hub_db, "SELECT COUNT(*) FROM mock_overrides o JOIN projects p ON p.id = o.project_id WHERE p.slug = 'cap'")
if int(cap_rows) > 50 or int(cap_rows) != overrides["created"]:
    broken.append(f"override cap: {cap_rows} stored, {overrides['created']} acknowledged, of {overrides['attempted']} (cap 50)")
for name, db in (("hub", hub_db), ("catalog", catalog_db), ("courses", courses_db)):
    twice = sql(db, "SELECT job, slot, COUNT(*) FROM job_runs GROUP BY job, slot HAVING COUNT(*) > 1")
    if twice:
        broken.append(f"{name}: scheduled jobs claimed twice in one period: {twice}")
    runs = sql(db, "SELECT job, COUNT(*) FROM job_runs GROUP BY job ORDER BY job")
    print(f"scheduled jobs ({name}): " + ", ".join(f"{job} {count}" for job, count in runs))
print(f"override cap: {overrides['created']} of {overrides['attempted']} concurrent creations acknowledged, {cap_rows} stored (cap 50)")
print(f"broken invariants: {len(broken)}")
for b in broken:
    print("  " + b)

limits_ok = 114 <= wide <= 126 and 57 <= narrow <= 63
print(f"limits across three nodes: {wide} of 400 mock requests per project (seed 120, allowed 114 to 126), "
      f"{narrow} of 100 from one address (seed 60, allowed 57 to 63): {'held' if limits_ok else 'NOT HELD'}")
migration_bad = int(__import__("os").environ.get("MIGRATION_BAD", "1"))
print(f"blob round trip: {migration_bad} documents missing or different")
sys.exit(0 if lost == 0 and not broken and limits_ok and migration_bad == 0 else 1)
PY
