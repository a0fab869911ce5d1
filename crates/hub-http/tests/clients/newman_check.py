"""Saved requests, checked by Newman (Postman's own runner).

A local API written here answers 200 only when every placeholder arrived
resolved (the bearer secret, the query's limit, the body's pet name) and
401 or 422 otherwise, and records what it saw. Through the hub's API this
script makes a project whose description points at that API, an
environment with a secret, and requests in a folder; it runs them through
the hub, exports the collection and the environment (the secret's value
asked for explicitly), runs both with Newman, imports a collection it
writes itself, and finally reads the hub's whole log for the secret.
"""

import json
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HUB, TOKEN, NEWMAN, LOG_OUT, LOG_ERR = sys.argv[1:6]
SECRET = "sk_newman_7Hq2-secret"
seen = []


class Api(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self):
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        seen.append({"method": self.command, "path": self.path, "auth": self.headers.get("authorization"), "body": body})
        if self.headers.get("authorization") != f"Bearer {SECRET}":
            status, reply = 401, {"error": "the bearer token did not arrive resolved"}
        elif self.command == "GET" and "limit=3" not in self.path:
            status, reply = 422, {"error": "the limit did not arrive resolved"}
        elif self.command == "POST" and json.loads(body or "{}").get("name") != "Rex":
            status, reply = 422, {"error": "the pet's name did not arrive resolved"}
        else:
            status, reply = 200, {"ok": True, "path": self.path}
        data = json.dumps(reply).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = answer


server = ThreadingHTTPServer(("127.0.0.1", 0), Api)
threading.Thread(target=server.serve_forever, daemon=True).start()
BASE = f"http://127.0.0.1:{server.server_address[1]}/v1"


def call(method, path, body=None, raw=None):
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(HUB + path, data=data, method=method)
    request.add_header("authorization", f"Bearer {TOKEN}")
    if data is not None:
        request.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def ok(status, text, expected=(200, 201)):
    assert status in expected, f"{status}: {text}"
    return json.loads(text) if text else None


description = {
    "openapi": "3.1.0",
    "info": {"title": "Pets", "version": "1"},
    "servers": [{"url": BASE}],
    "paths": {"/pets": {"get": {"responses": {"200": {"description": "ok"}}}}},
}
ok(*call("POST", "/api/v1/projects", {"name": "Newman pets", "slug": "newman-pets"}))
ok(*call("POST", "/api/v1/projects/newman-pets/versions?label=v1", raw=json.dumps(description).encode()))
P = "/api/v1/projects/newman-pets"
env = ok(*call("POST", f"{P}/environments", {"name": "Local", "variables": {"limit": "3", "pet": "Rex"}, "secrets": {"token": SECRET}, "is_default": True}))
auth = ["Authorization", "Bearer {{token}}"]
made = [
    ok(*call("POST", f"{P}/requests", {"name": "List pets", "folder": "Pets", "method": "GET", "url": "/pets", "headers": [auth], "query": [["limit", "{{limit}}"]]})),
    ok(*call("POST", f"{P}/requests", {"name": "Create a pet", "folder": "Pets/Admin", "method": "POST", "url": "/pets", "headers": [auth, ["Content-Type", "application/json"]], "body": '{"name": "{{pet}}"}'})),
]

# The hub runs them itself, every placeholder resolved.
for request in made:
    ran = ok(*call("POST", f"{P}/requests/{request['id']}/run", {}))
    assert ran["status"] == 200, ran
    assert SECRET not in json.dumps(ran), ran
hub_runs = len(seen)
assert hub_runs == 2 and all(s["auth"] == f"Bearer {SECRET}" for s in seen), seen

# Newman runs the export: the collection, and the environment with the
# secret's value asked for explicitly.
collection = ok(*call("GET", f"{P}/requests/export?format=postman"))
hidden = ok(*call("GET", f"{P}/requests/export?format=postman-environment&environment={env['id']}"))
assert [v for v in hidden["values"] if v["key"] == "token"][0]["value"] == "", hidden
shown = ok(*call("GET", f"{P}/requests/export?format=postman-environment&environment={env['id']}&secrets=include"))
with tempfile.TemporaryDirectory() as work:
    work = Path(work)
    (work / "collection.json").write_text(json.dumps(collection))
    (work / "environment.json").write_text(json.dumps(shown))
    report = work / "report.json"
    run = subprocess.run(
        [NEWMAN, "run", str(work / "collection.json"), "-e", str(work / "environment.json"),
         "--reporters", "cli,json", "--reporter-json-export", str(report), "--bail", "failure"],
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    result = json.loads(report.read_text())
    executions = result["run"]["executions"]
    codes = [e["response"]["code"] for e in executions]
    assert codes == [200, 200], codes
    assert result["run"]["stats"]["requests"]["failed"] == 0, result["run"]["stats"]
names = [s["path"] for s in seen[hub_runs:]]
assert names == ["/v1/pets?limit=3", "/v1/pets"], names
print(f"newman: {len(executions)} requests of the exported collection passed against the local API")

# A collection written here imports with its folders.
written = {
    "info": {"name": "Written by hand", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
    "item": [{"name": "Outer", "item": [{"name": "Inner", "item": [
        {"name": "Deep pets", "request": {"method": "GET", "url": "{{baseUrl}}/pets?limit={{limit}}",
                                            "header": [{"key": "Authorization", "value": "Bearer {{token}}"}]}}]}]}],
}
imported = ok(*call("POST", f"{P}/requests/import", raw=json.dumps(written).encode()))
assert imported["imported"] == 1, imported
listed = ok(*call("GET", f"{P}/requests"))["data"]
deep = [r for r in listed if r["name"] == "Deep pets"]
assert deep and deep[0]["folder"] == "Outer/Inner", listed

# Nothing the hub answered or logged holds the secret.
for path in [f"{P}/environments", f"{P}/requests", f"{P}/environments/{env['id']}", "/api/v1/audit?limit=100"]:
    status, text = call("GET", path)
    assert SECRET not in text, f"{path} answered the secret"
logs = Path(LOG_OUT).read_text() + Path(LOG_ERR).read_text()
assert f"{P}/requests/" in logs and "/run" in logs, "the log names every request, runs included"
assert SECRET not in logs, "the secret reached the hub's log"
print("saved requests: runs resolved, secrets absent from answers, exports, the audit log and the log")
