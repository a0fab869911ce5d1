"""Runtime checks of the generated Python SDK against a recording server:
path, query (form, exploded or not, deepObject), header and cookie
parameters, multipart, form and binary bodies, and every credential location."""

from __future__ import annotations

import base64
import http.server
import threading
from typing import Any

from features import Client

seen: list[dict[str, Any]] = []
replies: list[tuple[int, str, bytes]] = []


class Recorder(http.server.BaseHTTPRequestHandler):
    def handle_any(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        seen.append({
            "method": self.command,
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": self.rfile.read(length),
        })
        status, content_type, payload = replies.pop(0)
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PUT = handle_any

    def log_message(self, format: str, *args: Any) -> None:
        pass


def check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def main() -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"

    replies.append((201, "application/json", b'{"ok": true}'))
    client = Client(base, token="T")
    result = client.upload("a b", "x/y", {"file": b"hi", "note": "n"}, tags=["a", "b"], ids=[1, 2],
                           filter={"kind": "k"}, x_request_id="r1", theme="dark")
    check(result.get("ok") is True, "typed JSON result")
    upload = seen[0]
    check(upload["path"] == "/items/a%20b/files/x%2Fy?tags=a&tags=b&ids=1%2C2&filter%5Bkind%5D=k", upload["path"])
    check(upload["headers"]["authorization"] == "Bearer T", "bearer token")
    check(upload["headers"]["x-request-id"] == "r1" and upload["headers"]["cookie"] == "theme=dark", "header and cookie")
    check(upload["headers"]["content-type"].startswith("multipart/form-data; boundary="), "multipart type")
    check(b'name="file"; filename="file"' in upload["body"] and b"\r\n\r\nhi\r\n" in upload["body"], "multipart file")
    check(b'name="note"\r\n\r\nn\r\n' in upload["body"], "multipart field")

    replies.append((204, "", b""))
    Client(base, basic=("u", "p\u00e9")).login({"user": "me", "remember": True})
    form = seen[1]
    expected = "Basic " + base64.b64encode("u:p\u00e9".encode("utf-8")).decode("ascii")
    check(form["headers"]["authorization"] == expected, "basic credentials in UTF-8")
    check(form["body"] == b"user=me&remember=true", f"form body {form['body']!r}")
    check(form["headers"]["content-type"] == "application/x-www-form-urlencoded", "form type")

    replies.append((200, "text/plain", b"hello"))
    found: str = Client(base, key_query="K", key_cookie="S", token="T").search(q="x")
    search = seen[2]
    check(found == "hello", "text result")
    check(search["path"] == "/search?q=x&api_key=K", search["path"])
    check(search["headers"]["cookie"] == "session=S" and "authorization" not in search["headers"], "first alternative")
    replies.append((200, "text/plain", b"again"))
    Client(base, token="T").search(q="y")
    check(seen[3]["headers"].get("authorization") == "Bearer T", "the second alternative")

    replies.append((200, "application/octet-stream", b"\x01\x02\x03"))
    back: bytes = Client(base).put_blob(b"\x01\x02\x03")
    check(seen[4]["body"] == b"\x01\x02\x03" and seen[4]["headers"]["content-type"] == "application/octet-stream", "binary")
    check(back == b"\x01\x02\x03", "binary result")
    server.shutdown()
    print("python runtime: 17 checks passed")


if __name__ == "__main__":
    main()
