#!/usr/bin/env python3
"""A Plaza webhook receiver in Python's standard library alone (Python 3.8 or later).

    PLAZA_CLIENT_SECRET=whsec_... PORT=3000 python3 receiver.py

It verifies the Standard Webhooks headers Plaza sends with every request (webhook-id,
webhook-timestamp, webhook-signature) on the raw body, refuses a request signed more than five
minutes from this machine's clock, answers 200, and handles each (event, purchase_id) once.
"""
import base64
import hashlib
import hmac
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET = os.environ["PLAZA_CLIENT_SECRET"]  # whsec_...: the key icon in My Apps; keep it on the server
PORT = int(os.environ.get("PORT", "3000"))
PATH = "/webhooks/plaza"
TOLERANCE_SECONDS = 5 * 60  # as the Standard Webhooks libraries: older (or newer) requests are replays or a wrong clock
MAX_BODY_BYTES = 1024 * 1024

# The HMAC key is the base64 part of the secret after "whsec_", decoded (not the text of the secret).
KEY = base64.b64decode(SECRET[len("whsec_"):] if SECRET.startswith("whsec_") else SECRET)

seen = set()  # (event, purchase_id) already handled; use your database to survive restarts


def signature_problem(headers, body):
    """Why the request is not Plaza's (a sentence for the 401), or None when it is."""
    msg_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not (msg_id and timestamp and signatures):
        return "Missing webhook-id, webhook-timestamp or webhook-signature"
    if not timestamp.isdigit():
        return "webhook-timestamp is not a Unix time in seconds"
    age = int(time.time()) - int(timestamp)
    if abs(age) > TOLERANCE_SECONDS:
        return "Webhook timestamp too old or too new: signed %d s from now, more than %d s" % (age, TOLERANCE_SECONDS)
    signed = msg_id.encode() + b"." + timestamp.encode() + b"." + body
    expected = base64.b64encode(hmac.new(KEY, signed, hashlib.sha256).digest()).decode()
    # Space-separated "v1,<base64>" entries: during a secret rotation Plaza signs with the new and the old secret.
    for entry in signatures.split(" "):
        version, _, signature = entry.partition(",")
        if version == "v1" and hmac.compare_digest(signature.encode(), expected.encode()):
            return None
    return "Invalid webhook signature"


class WebhookHandler(BaseHTTPRequestHandler):
    def do_POST(self):
        if self.path != PATH:
            return self.answer(404, "Not found")
        length = int(self.headers.get("content-length") or 0)
        if length > MAX_BODY_BYTES:
            return self.answer(413, "Payload too large")
        body = self.rfile.read(length)  # the exact bytes: the signature covers them, not a re-serialized JSON
        problem = signature_problem(self.headers, body)
        if problem:
            return self.answer(401, problem)
        try:
            event = json.loads(body)
            key = (event["event"], event["purchase_id"])
        except (ValueError, KeyError, TypeError):
            return self.answer(400, "Malformed webhook payload")
        if key in seen:
            return self.answer(200, "Already processed")  # retries and redeliveries carry the same event again
        seen.add(key)
        self.answer(200, "OK")
        # Plaza waits for the answer only (10 s at most): do slow work after it, or hand it to a queue.
        print("%s %s for %s (delivery %s, attempt %s)" % (event["event"], event["purchase_id"], event["user_id"],
                                                         self.headers.get("webhook-id"), self.headers.get("x-platform-attempt")), flush=True)

    def answer(self, status, message):
        data = message.encode()
        self.send_response(status)
        self.send_header("content-type", "text/plain; charset=utf-8")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):
        sys.stderr.write("%s %s\n" % (self.address_string(), format % args))


if __name__ == "__main__":
    server = ThreadingHTTPServer(("", PORT), WebhookHandler)
    print("receiving Plaza webhooks on http://localhost:%d%s" % (server.server_port, PATH), flush=True)
    server.serve_forever()
