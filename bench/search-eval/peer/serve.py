"""An OpenAI-compatible embeddings endpoint serving all-MiniLM-L6-v2.

So the search evaluation can measure the hub's re-ranking by an operator's
embeddings model (`SVC_LLM_URL` with `SVC_LLM_EMBEDDING_MODEL`) without a
hosted model: `POST /v1/embeddings` with `{"model", "input": [...]}`
answers `{"data": [{"index", "embedding"}], "model", "usage"}` as OpenAI's
endpoint does. Vectors are kept by text in a SQLite file (PEER_CACHE,
default ~/.cache/svc-test/bench/dense), so a second run of the evaluation
asks the model only for new questions.

Usage (from the repository root):
    python bench/search-eval/peer/serve.py [port]      # default 8765
    SVC_LLM_URL=http://127.0.0.1:8765/v1 SVC_LLM_EMBEDDING_MODEL=all-MiniLM-L6-v2 \\
        cargo run --release -p hub-core --example search-eval -- bench/search-eval <api.github.com.json>
"""

import json
import os
import sqlite3
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

import numpy as np
from minilm import MiniLM

MAX_BODY = 8 * 1024 * 1024


class Vectors:
    """MiniLM's vectors of texts, kept on disk by text."""

    def __init__(self, path):
        self.model = MiniLM()
        self.db = sqlite3.connect(path)
        self.db.execute("CREATE TABLE IF NOT EXISTS vectors (text TEXT PRIMARY KEY, vector BLOB NOT NULL)")

    def of(self, texts):
        known = {}
        for text in set(texts):
            row = self.db.execute("SELECT vector FROM vectors WHERE text = ?", (text,)).fetchone()
            if row:
                known[text] = np.frombuffer(row[0], np.float32)
        missing = sorted({t for t in texts if t not in known})
        if missing:
            for text, vector in zip(missing, self.model.embed(missing)):
                known[text] = vector.astype(np.float32)
                self.db.execute("INSERT OR REPLACE INTO vectors VALUES (?, ?)", (text, known[text].tobytes()))
            self.db.commit()
        return [known[t] for t in texts]


def handler(vectors):
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - the standard library's name
            if not self.path.rstrip("/").endswith("/embeddings"):
                return self.answer(404, {"error": {"message": "only /v1/embeddings is served"}})
            length = int(self.headers.get("content-length") or 0)
            if length > MAX_BODY:
                return self.answer(413, {"error": {"message": "too large"}})
            try:
                body = json.loads(self.rfile.read(length))
                texts = body["input"]
                texts = [texts] if isinstance(texts, str) else [str(t) for t in texts]
            except (ValueError, KeyError, TypeError) as error:
                return self.answer(400, {"error": {"message": str(error)}})
            data = [{"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vectors.of(texts))]
            tokens = sum(len(t.split()) for t in texts)
            self.answer(200, {"object": "list", "data": data, "model": body.get("model"),
                              "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})

        def answer(self, status, value):
            payload = json.dumps(value).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    return Handler


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8765
    cache = os.environ.get("PEER_CACHE", os.path.expanduser("~/.cache/svc-test/bench/dense"))
    os.makedirs(cache, exist_ok=True)
    server = HTTPServer(("127.0.0.1", port), handler(Vectors(os.path.join(cache, "served.sqlite"))))
    print(f"embeddings at http://127.0.0.1:{port}/v1/embeddings", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
