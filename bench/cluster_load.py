#!/usr/bin/env python3
"""Mixed load, limit bursts and the acknowledged-write checker of bench/cluster.sh.

Standard library only: asyncio keep-alive HTTP/1.1 connections. Every
acknowledged write (a push answered 201, a completion answered 201, a
promotion answered 200) is appended to the ack log as one JSON line the
moment its answer arrives, so `check` can compare it with the database.

  cluster_load.py mixed  --base URL --state state.json --seconds N --acks FILE --phase NAME
  cluster_load.py burst  --base URL --path /mock/p/a --count N --clients N
  cluster_load.py overrides --base URL --state state.json --count N
"""

import argparse
import asyncio
import json
import random
import sys
import time
from urllib.parse import urlsplit


class Conn:
    """One keep-alive HTTP/1.1 connection, reopened after any failure."""

    def __init__(self, base):
        parts = urlsplit(base)
        self.host, self.port = parts.hostname, parts.port or 80
        self.reader = self.writer = None

    async def request(self, method, path, headers=None, body=b"", timeout=30):
        try:
            return await asyncio.wait_for(self._request(method, path, headers or {}, body), timeout)
        except Exception as err:  # a dead node, a reset, a timeout: not acknowledged
            self.close()
            return 0, {}, str(err).encode()

    async def _request(self, method, path, headers, body):
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        if isinstance(body, str):
            body = body.encode()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}", f"Content-Length: {len(body)}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        await self.writer.drain()
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("closed")
        status = int(status_line.split()[1])
        answer_headers = {}
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            answer_headers[name.strip().lower()] = value.strip()
        if answer_headers.get("transfer-encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int((await self.reader.readline()).split(b";")[0], 16)
                if size == 0:
                    await self.reader.readline()
                    break
                data += await self.reader.readexactly(size)
                await self.reader.readline()
        else:
            data = await self.reader.readexactly(int(answer_headers.get("content-length", "0")))
        if answer_headers.get("connection", "").lower() == "close":
            self.close()
        return status, answer_headers, data

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


SPEC = """openapi: 3.0.3
info: {{title: Cluster, version: '{v}'}}
paths:
  /a:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              example: {{n: {v}}}
"""


class Stats:
    def __init__(self):
        self.by_kind = {}

    def add(self, kind, status, seconds):
        entry = self.by_kind.setdefault(kind, {"lat": [], "ok": 0, "err": 0, "limited": 0})
        entry["lat"].append(seconds)
        if 200 <= status < 300:
            entry["ok"] += 1
        elif status == 429:
            entry["limited"] += 1
        else:
            entry["err"] += 1


def pct(values, p):
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


async def mixed(args):
    state = json.load(open(args.state))
    acks = open(args.acks, "a", buffering=1)
    stats = Stats()
    deadline = time.monotonic() + args.seconds
    hub = {"Authorization": f"Bearer {state['hub_token']}", "X-Forwarded-For": "192.0.2.10"}
    worker_ids = iter(range(10_000))

    async def timed(kind, conn, method, path, headers=None, body=b""):
        started = time.monotonic()
        status, answer_headers, data = await conn.request(method, path, headers, body)
        stats.add(kind, status, time.monotonic() - started)
        return status, data

    async def pusher():
        me = next(worker_ids)
        conn = Conn(args.base)
        n = 0
        while time.monotonic() < deadline:
            project = random.choice(state["projects"])
            label = f"{args.phase}-{me}-{n}"
            n += 1
            status, data = await timed("push", conn, "POST", f"/api/v1/projects/{project}/versions?label={label}",
                                       hub, SPEC.format(v=f"{me}.{n}"))
            if status == 201:
                sha = json.loads(data).get("spec_sha256")
                acks.write(json.dumps({"kind": "push", "project": project, "label": label, "sha": sha}) + "\n")

    async def promoter():
        conn = Conn(args.base)
        while time.monotonic() < deadline:
            project = random.choice(state["projects"])
            label = random.choice(state["labels"])
            status, _ = await timed("promote", conn, "PATCH", f"/api/v1/projects/{project}/versions/{label}",
                                    {**hub, "Content-Type": "application/json"}, json.dumps({"is_default": True}))
            if status == 200:
                acks.write(json.dumps({"kind": "promote", "project": project, "label": label}) + "\n")

    async def reader():
        conn = Conn(args.base)
        while time.monotonic() < deadline:
            project = random.choice(state["projects"])
            await timed("read", conn, "GET", f"/api/v1/projects/{project}/versions?limit=5", hub)

    async def mocker():
        conn = Conn(args.mock_base or args.base)
        while time.monotonic() < deadline:
            # Addresses spread so the mock's limits are not what is measured.
            ip = f"198.18.{random.randint(0, 255)}.{random.randint(1, 254)}"
            await timed("mock", conn, "GET", f"/mock/{random.choice(state['projects'])}/a", {"X-Forwarded-For": ip})

    async def catalog():
        conn = Conn(args.catalog_base)
        auth = {"Authorization": f"Bearer {state['catalog_token']}"}
        while time.monotonic() < deadline:
            await timed("catalog", conn, "GET", "/v1/search?q=demo&type=track&limit=5", auth)

    async def completer():
        conn = Conn(args.courses_base)
        auth = {"Authorization": f"Bearer {state['courses_key']}", "Content-Type": "application/json"}
        while time.monotonic() < deadline:
            identity = random.choice(state["identities"])
            body = json.dumps({"courseId": state["course_id"], "identityId": identity, "answers": {}})
            status, data = await timed("completion", conn, "POST", "/v1/completions", auth, body)
            if status == 201:
                acks.write(json.dumps({"kind": "completion", "id": json.loads(data).get("id"), "identity": identity}) + "\n")

    tasks = [pusher() for _ in range(args.pushers)]
    tasks += [promoter() for _ in range(2)]
    tasks += [reader() for _ in range(4)]
    tasks += [mocker() for _ in range(4)]
    if args.catalog_base and state.get("catalog_token"):
        tasks += [catalog() for _ in range(2)]
    if args.courses_base and state.get("courses_key"):
        tasks += [completer() for _ in range(2)]
    started = time.monotonic()
    await asyncio.gather(*tasks)
    elapsed = time.monotonic() - started
    report = {"phase": args.phase, "seconds": round(elapsed, 1), "kinds": {}}
    total = 0
    for kind, entry in sorted(stats.by_kind.items()):
        count = len(entry["lat"])
        total += count
        report["kinds"][kind] = {
            "requests": count, "per_sec": round(count / elapsed, 1), "ok": entry["ok"], "errors": entry["err"],
            "limited": entry["limited"], "p50_ms": round(pct(entry["lat"], 50) * 1000, 1),
            "p99_ms": round(pct(entry["lat"], 99) * 1000, 1),
        }
    report["per_sec"] = round(total / elapsed, 1)
    print(json.dumps(report))


async def burst(args):
    """`count` requests at once, from `clients` addresses: how many passed."""
    conns = [Conn(args.base) for _ in range(min(args.count, 50))]
    passed = limited = other = 0
    started = time.monotonic()

    async def one(i):
        nonlocal passed, limited, other
        conn = conns[i % len(conns)]
        ip = f"203.0.{(i % args.clients) // 250}.{(i % args.clients) % 250 + 1}"
        status, _, _ = await conn.request("GET", args.path, {"X-Forwarded-For": ip})
        if status == 200:
            passed += 1
        elif status == 429:
            limited += 1
        else:
            other += 1

    # One request per connection at a time, all connections at once.
    queue = list(range(args.count))

    async def lane(k):
        for i in queue[k::len(conns)]:
            await one(i)

    await asyncio.gather(*(lane(k) for k in range(len(conns))))
    print(json.dumps({"path": args.path, "count": args.count, "clients": args.clients, "passed": passed,
                      "limited": limited, "other": other, "seconds": round(time.monotonic() - started, 2)}))


async def overrides(args):
    """`count` concurrent override creations on one project: at most 50 may exist."""
    state = json.load(open(args.state))
    hub = {"Authorization": f"Bearer {state['hub_token']}", "Content-Type": "application/json"}
    conns = [Conn(args.base) for _ in range(10)]
    created = 0

    async def lane(k):
        nonlocal created
        for i in range(k, args.count, len(conns)):
            body = json.dumps({"name": f"o{i}", "matcher": {"method": "GET", "path": f"/o{i}"},
                               "response": {"status": 200, "body": {"i": i}}})
            status, _, _ = await conns[k].request("POST", f"/api/v1/projects/{state['cap_project']}/mock/overrides",
                                                  hub, body)
            created += status == 201

    await asyncio.gather(*(lane(k) for k in range(len(conns))))
    print(json.dumps({"attempted": args.count, "created": created}))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["mixed", "burst", "overrides"])
    parser.add_argument("--base", required=True)
    parser.add_argument("--mock-base")
    parser.add_argument("--catalog-base")
    parser.add_argument("--courses-base")
    parser.add_argument("--state")
    parser.add_argument("--acks")
    parser.add_argument("--phase", default="load")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--pushers", type=int, default=6)
    parser.add_argument("--path")
    parser.add_argument("--count", type=int, default=400)
    parser.add_argument("--clients", type=int, default=400)
    args = parser.parse_args()
    runner = {"mixed": mixed, "burst": burst, "overrides": overrides}[args.mode]
    asyncio.run(runner(args))


if __name__ == "__main__":
    sys.exit(main())
