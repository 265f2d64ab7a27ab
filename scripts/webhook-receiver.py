#!/usr/bin/env python3
"""A webhook receiver for Coffer's tests, and the check a receiver makes.

serve: an HTTPS server on 127.0.0.1 (certificate and key given) that records every
request and answers by its path:
  /ok                    200
  /status/<code>         that status
  /retry-after/<secs>    503 with Retry-After: <secs>
  /slow/<secs>           200 after <secs> seconds (the request is recorded on arrival)
  /big                   200 with a 100 kB body
GET /_received returns what was recorded, as JSON: [{path, headers, body, arrived}].
It prints {"port": N} on its first line once it listens.

verify: reads {"headers": {...}, "body": "..."} on stdin and checks the delivery with the
`standardwebhooks` library as a receiver would, against --secret (a whsec_ key, or any
other key with --raw, whose UTF-8 bytes are the key). --at (Unix seconds) is the
receiver's clock, for deliveries made on a test clock. Exits 0 when it verifies.
"""

import argparse
import base64
import json
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RECEIVED = []
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/_received":
            with LOCK:
                body = json.dumps(RECEIVED).encode()
            self.reply(200, body, [("Content-Type", "application/json")])
        else:
            self.reply(404)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace")
        with LOCK:
            RECEIVED.append({
                "path": self.path,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": body,
                "arrived": time.time(),
            })
        parts = self.path.split("?", 1)[0].strip("/").split("/")
        if parts[0] == "status" and len(parts) == 2:
            self.reply(int(parts[1]), b"answered by the test receiver")
        elif parts[0] == "retry-after" and len(parts) == 2:
            self.reply(503, b"busy", [("Retry-After", parts[1])])
        elif parts[0] == "slow" and len(parts) == 2:
            time.sleep(float(parts[1]))
            self.reply(200, b"slow but fine")
        elif parts[0] == "big":
            self.reply(200, b"x" * 100_000)
        else:
            self.reply(200, b"ok")


def serve(args):
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    server.serve_forever()


def verify(args):
    from datetime import datetime, timezone

    import standardwebhooks.webhooks as webhooks

    delivery = json.load(sys.stdin)
    if args.at is not None:
        at = datetime.fromtimestamp(args.at, tz=timezone.utc)

        class Clock(datetime):
            @classmethod
            def now(cls, tz=None):
                return at

        webhooks.datetime = Clock
    secret = args.secret
    if args.raw:
        secret = base64.b64encode(secret.encode()).decode()
    try:
        webhooks.Webhook(secret).verify(delivery["body"], delivery["headers"])
    except Exception as e:  # the library's own error types
        print(f"not verified: {e}", file=sys.stderr)
        sys.exit(1)
    print("verified")


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--cert", required=True)
    s.add_argument("--key", required=True)
    s.add_argument("--port", type=int, default=0)
    v = sub.add_parser("verify")
    v.add_argument("--secret", required=True)
    v.add_argument("--raw", action="store_true")
    v.add_argument("--at", type=int)
    args = parser.parse_args()
    serve(args) if args.command == "serve" else verify(args)


if __name__ == "__main__":
    main()
