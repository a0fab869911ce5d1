"""A proxy for the SDK end-to-end run: the first request gets 429 with
`Retry-After: 1`, every later one is forwarded to the upstream unchanged.
Prints one line per request. Usage: retry_proxy.py PORT UPSTREAM_URL"""

import http.server
import sys
import urllib.error
import urllib.request

UPSTREAM = sys.argv[2].rstrip("/")
seen = 0


class Handler(http.server.BaseHTTPRequestHandler):
    def handle_any(self) -> None:
        global seen
        seen += 1
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else None
        if seen == 1:
            payload = b'{"error": "slow down"}'
            self.send_response(429)
            self.send_header("Retry-After", "1")
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            print(f"{seen} {self.command} {self.path} -> 429", flush=True)
            return
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length", "connection")}
        request = urllib.request.Request(UPSTREAM + self.path, data=body, headers=headers, method=self.command)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, reply_headers, payload = response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            status, reply_headers, payload = error.code, error.headers, error.read()
        self.send_response(status)
        for key, value in reply_headers.items():
            if key.lower() not in ("content-length", "transfer-encoding", "connection", "date", "server"):
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        print(f"{seen} {self.command} {self.path} -> forwarded {status}", flush=True)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any

    def log_message(self, format: str, *args: object) -> None:
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
