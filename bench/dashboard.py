"""Fills a hub with projects and versions through the API, signs in through
the dashboard's form, and times every dashboard page (see dashboard.sh)."""

import http.client
import json
import re
import statistics
import sys
import time
import urllib.parse

listen, token, password, projects, versions = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
host, port = listen.rsplit(":", 1)
conn = http.client.HTTPConnection(host, int(port))


def call(method, path, body=None, headers=None):
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    return response.status, dict(response.getheaders()), response.read()


SPEC = "openapi: 3.0.3\ninfo: {{title: Bench {n}, version: '{v}'}}\npaths:\n  /items:\n    get:\n      responses:\n        '200': {{description: ok}}\n  /items/{{id}}:\n    get:\n      parameters: [{{name: id, in: path, required: true, schema: {{type: string}}}}]\n      responses:\n        '200': {{description: ok}}\n"
auth = {"Authorization": f"Bearer {token}"}
started = time.time()
per_project = max(1, versions // projects)
for n in range(projects):
    status, _, body = call("POST", "/api/v1/projects", json.dumps({"name": f"Project {n:04d}", "slug": f"p{n:04d}"}), {**auth, "content-type": "application/json"})
    assert status == 201, body
    for v in range(per_project):
        status, _, body = call("POST", f"/api/v1/projects/p{n:04d}/versions?label=v{v}", SPEC.format(n=n, v=v), auth)
        assert status in (200, 201), body
print(f"filled {projects} projects and {projects * per_project} versions in {time.time() - started:.0f} s")

# Sign in as a browser does: the form's CSRF token and cookie, then the post.
cookies = {}


def keep(headers_list):
    for name, value in headers_list:
        if name.lower() == "set-cookie":
            pair = value.split(";", 1)[0]
            k, v = pair.split("=", 1)
            cookies[k] = v


conn.request("GET", "/app/signin")
r = conn.getresponse()
keep(r.getheaders())
page = r.read().decode()
csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
form = urllib.parse.urlencode({"email": "bench@example.com", "password": password, "csrf_token": csrf, "next": "/app"})
cookie = "; ".join(f"{k}={v}" for k, v in cookies.items())
conn.request("POST", "/app/signin", body=form, headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie})
r = conn.getresponse()
keep(r.getheaders())
r.read()
assert r.status == 303, r.status
cookie = "; ".join(f"{k}={v}" for k, v in cookies.items())

middle = f"p{projects // 2:04d}"
pages = [
    "/app",
    "/app?q=Project+05",
    f"/app?offset={max(0, projects - 25)}",
    f"/app/p/{middle}",
    f"/app/p/{middle}/settings",
    f"/app/p/{middle}/diff",
    f"/app/p/{middle}/sdks",
    "/app/new",
    "/app/tokens",
    "/app/account",
]
print(f"\n{'page':40} {'median ms':>10} {'p95 ms':>8} {'KB':>7}")
worst = 0.0
heaviest = 0
for path in pages:
    times = []
    size = 0
    for _ in range(30):
        t0 = time.perf_counter()
        conn.request("GET", path, headers={"Cookie": cookie})
        r = conn.getresponse()
        first = time.perf_counter()
        body = r.read()
        assert r.status == 200, (path, r.status, body[:300])
        times.append((first - t0) * 1000)
        size = len(body)
    times.sort()
    median, p95 = statistics.median(times), times[int(len(times) * 0.95) - 1]
    worst = max(worst, p95)
    heaviest = max(heaviest, size)
    print(f"{path:40} {median:10.2f} {p95:8.2f} {size / 1024:7.1f}")
print(f"\nworst p95 {worst:.1f} ms (target under 20 ms); heaviest page {heaviest / 1024:.1f} KB (target under 150 KB)")
