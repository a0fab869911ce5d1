"""Signs up an author in the studio, makes a course of N screens through the
API, and times the course editor page (see studio-editor.sh)."""

import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import time
import urllib.parse

listen, svc, data_dir, screens = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
host, port = listen.rsplit(":", 1)
conn = http.client.HTTPConnection(host, int(port))
cookies = {}


def keep(headers):
    for name, value in headers:
        if name.lower() == "set-cookie":
            k, v = value.split(";", 1)[0].split("=", 1)
            cookies[k] = v


def call(method, path, body=None, headers=None):
    headers = dict(headers or {})
    if cookies:
        headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    keep(response.getheaders())
    return response.status, dict(response.getheaders()), response.read()


def form(path, fields):
    _, _, page = call("GET", path)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.decode()).group(1)
    body = urllib.parse.urlencode({**fields, "csrf_token": token})
    return call("POST", path, body, {"Content-Type": "application/x-www-form-urlencoded"})


status, _, body = form("/signup", {"workspace_name": "Bench Academy", "display_name": "Bench", "email": "bench@example.com", "password": "bench passphrase for the editor"})
assert status == 200 and b"Check your mail" in body, (status, body[:300])
# The address is confirmed by the mailed link (written under <data dir>/mail/).
mail_dir = os.path.join(data_dir, "mail")
mail = "".join(open(os.path.join(mail_dir, f)).read() for f in sorted(os.listdir(mail_dir)) if f.endswith(".txt"))
link = re.search(r"https?://[^/\s]+(/verify\?token=\S+)", mail).group(1)
token = link.split("token=", 1)[1]
_, _, page = call("GET", link)
csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.decode()).group(1)
status, _, body = call("POST", "/verify", urllib.parse.urlencode({"token": token, "csrf_token": csrf}), {"Content-Type": "application/x-www-form-urlencoded"})
assert status == 303, (status, body[:300])
_, _, settings = call("GET", "/settings")
workspace = re.search(r'id="ws-id"[^>]*>\s*([^<\s]+)', settings.decode()).group(1)
made = subprocess.run([svc, "--json", "--data-dir", data_dir, "courses", "key", "create", "--workspace", workspace], check=True, capture_output=True, text=True)
key = json.loads(made.stdout)["key"]

course = {
    "title": "Bench course",
    "passingScore": 70,
    "screens": [
        {
            "title": f"Screen {n + 1}",
            "blocks": [
                {"type": "heading", "text": f"Part {n + 1}"},
                {"type": "text", "text": "A paragraph of teaching text, long enough to look like a real screen of a course. " * 3},
                {"type": "list", "items": ["One point", "Another point", "A third point"]},
                {"type": "multiple_choice", "question": f"Question {n + 1}?", "options": ["Yes", "No", "Maybe"], "correctIndex": 0},
            ],
        }
        for n in range(screens)
    ],
}
status, _, body = call("POST", "/v1/courses", json.dumps(course), {"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
assert status == 201, (status, body[:300])
course_id = json.loads(body)["id"]
path = f"/courses/{course_id}"

for _ in range(5):
    call("GET", path)
times = []
size = 0
for _ in range(100):
    started = time.perf_counter()
    status, _, page = call("GET", path)
    times.append((time.perf_counter() - started) * 1000)
    assert status == 200, status
    size = len(page)
assert page.decode().count('<li class="card" id="screen-') == screens, "every screen is on the page"
times.sort()
median = statistics.median(times)
p95 = times[int(len(times) * 0.95) - 1]
print(f"editor page of a {screens}-screen course ({4 * screens} blocks), 100 requests: median {median:.1f} ms, p95 {p95:.1f} ms, worst {times[-1]:.1f} ms, {size / 1024:.0f} KB")
print("target: under 20 ms -", "met" if p95 < 20 else "NOT met")
