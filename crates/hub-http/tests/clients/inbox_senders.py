"""Webhook inboxes against the senders' own libraries, not ours.

Payloads signed by Stripe's (PyPI `stripe`), Slack's (`slack-sdk`), the
Standard Webhooks reference library (`standardwebhooks`) and GitHub's
(`@octokit/webhooks-methods`, through node) are captured; a one-byte change
or a stale timestamp is refused and not stored; a replay of each capture to
a local receiver verifies with the same library, and the inbox's test
event verifies with `stripe.Webhook.construct_event`.

Usage: inbox_senders.py HUB_URL TOKEN OCTOKIT_DIR   (OCTOKIT_DIR holds
node_modules/@octokit/webhooks-methods and inbox_octokit.mjs; empty skips
GitHub)
"""

import base64
import http.server
import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import slack_sdk.signature
import standardwebhooks
import stripe

HUB, TOKEN, OCTOKIT = sys.argv[1], sys.argv[2], (sys.argv[3] if len(sys.argv) > 3 else "")


def api(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(HUB + path, data=data, method=method)
    req.add_header("Authorization", f"Bearer {TOKEN}")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req) as answer:
        text = answer.read()
        return json.loads(text) if text else None


def deliver(url, body: bytes, headers):
    req = urllib.request.Request(url, data=body, method="POST")
    for name, value in headers.items():
        req.add_header(name, value)
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def octokit(*args, payload: bytes):
    out = subprocess.run(["node", f"{OCTOKIT}/inbox_octokit.mjs", *args], input=payload, capture_output=True, check=True)
    return out.stdout.decode()


received = []


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        received.append(({k.lower(): v for k, v in self.headers.items()}, body))
        self.send_response(202)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=server.serve_forever, daemon=True).start()
RECEIVER = f"http://127.0.0.1:{server.server_address[1]}/hooks"

STRIPE_SECRET = "whsec_" + base64.b64encode(b"stripe-test-secret").decode()
SLACK_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
STD_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
GITHUB_SECRET = "It's a Secret to Everybody"


def stripe_headers(body: bytes, at: int):
    signature = stripe.WebhookSignature._compute_signature(f"{at}.{body.decode()}", STRIPE_SECRET)
    return {"Stripe-Signature": f"t={at},v1={signature}"}


def slack_headers(body: bytes, at: int):
    signer = slack_sdk.signature.SignatureVerifier(SLACK_SECRET)
    return {"X-Slack-Request-Timestamp": str(at), "X-Slack-Signature": signer.generate_signature(timestamp=str(at), body=body)}


def std_headers(body: bytes, at: int):
    from datetime import datetime, timezone
    signature = standardwebhooks.Webhook(STD_SECRET).sign("msg_senders_1", datetime.fromtimestamp(at, tz=timezone.utc), body.decode())
    return {"webhook-id": "msg_senders_1", "webhook-timestamp": str(at), "webhook-signature": signature}


def github_headers(body: bytes, _at: int):
    return {"X-Hub-Signature-256": octokit("sign", GITHUB_SECRET, payload=body)}


def stripe_verifies(headers, body):
    stripe.Webhook.construct_event(body.decode(), headers["stripe-signature"], STRIPE_SECRET)
    return True


def slack_verifies(headers, body):
    signer = slack_sdk.signature.SignatureVerifier(SLACK_SECRET)
    return signer.is_valid(body=body, timestamp=headers["x-slack-request-timestamp"], signature=headers["x-slack-signature"])


def std_verifies(headers, body):
    standardwebhooks.Webhook(STD_SECRET).verify(body, headers)
    return True


def github_verifies(headers, body):
    return octokit("verify", GITHUB_SECRET, headers["x-hub-signature-256"], payload=body) == "true"


cases = [
    ("stripe", STRIPE_SECRET, stripe_headers, stripe_verifies, True),
    ("slack", SLACK_SECRET, slack_headers, slack_verifies, True),
    ("standard-webhooks", STD_SECRET, std_headers, std_verifies, True),
]
if OCTOKIT:
    cases.append(("github", GITHUB_SECRET, github_headers, github_verifies, False))
else:
    print("skipping GitHub: @octokit/webhooks-methods is not installed")

for scheme, secret, sign, verifies, timestamped in cases:
    inbox = api("POST", "/api/v1/inboxes", {"name": scheme, "verification": {"scheme": scheme, "secret": secret}})
    assert secret not in json.dumps(inbox), "the secret is never answered"
    url = inbox["capture_url"]
    body = json.dumps({"id": f"evt_{scheme}", "type": "thing.happened", "data": {"n": 1}}).encode()
    now = int(time.time())
    status, answer = deliver(url, body, sign(body, now))
    assert status == 200, (scheme, status, answer)
    tampered = body.replace(b'"n": 1', b'"n": 2')
    status, answer = deliver(url, tampered, sign(body, now))
    assert (status, answer["error"]["code"]) == (401, "SIGNATURE_INVALID"), (scheme, status, answer)
    if timestamped:
        status, answer = deliver(url, body, sign(body, now - 600))
        assert status == 401 and "tolerance" in answer["error"]["message"], (scheme, status, answer)
    captures = api("GET", f"/api/v1/inboxes/{inbox['id']}/captures")["data"]
    assert len(captures) == 1 and captures[0]["body"] == body.decode() and captures[0]["verified"] is True, captures
    # The replay is re-signed afresh: the sender's own library verifies it.
    result = api("POST", f"/api/v1/inboxes/{inbox['id']}/captures/{captures[0]['id']}/replay", {"url": RECEIVER})
    assert result["status"] == 202, (scheme, result)
    headers, replayed = received.pop()
    assert replayed == body, (scheme, replayed)
    assert verifies(headers, replayed), scheme
    print(f"{scheme}: signed by its library, captured; a changed byte{' and a stale timestamp' if timestamped else ''} refused; the replay verifies")

# The test event: Stripe's v1 format with the inbox's secret, verified by
# Stripe's own library.
inbox = api("POST", "/api/v1/inboxes", {"name": "test event", "verification": {"scheme": "stripe", "secret": STRIPE_SECRET}})
result = api("POST", f"/api/v1/inboxes/{inbox['id']}/send-test", {"url": RECEIVER})
assert result["status"] == 202, result
headers, body = received.pop()
event = stripe.Webhook.construct_event(body.decode(), headers["stripe-signature"], STRIPE_SECRET)
assert event["type"] == "inbox.test", event
print("send-test: verified by stripe.Webhook.construct_event")
