"""Headless Chromium driven over the DevTools protocol, for the tests that walk a person
through Coffer's pages (sso/browser_login.py, stripe/donor_page.py): start it on a profile of
its own, drive its one tab, and listen where Coffer sends the person back to.
"""

import json
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlparse

import websocket


class Tab:
    def __init__(self, ws_url):
        self.ws = websocket.create_connection(ws_url, timeout=30)
        self.next_id = 0

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression, await_promise=False):
        result = self.call(
            "Runtime.evaluate",
            expression=expression,
            returnByValue=True,
            awaitPromise=await_promise,
        )
        if "exceptionDetails" in result:
            raise RuntimeError(json.dumps(result["exceptionDetails"])[:500])
        return result.get("result", {}).get("value")

    def wait_for(self, expression, seconds=20):
        deadline = time.time() + seconds
        while time.time() < deadline:
            try:
                if self.evaluate(expression):
                    return True
            except (RuntimeError, websocket.WebSocketException):
                pass  # the page is navigating
            time.sleep(0.1)
        return False


def start(chromium):
    """Chromium, headless on a fresh profile, and its tab; kill the process when done."""
    profile = tempfile.mkdtemp(prefix="coffer-chromium-")
    process = subprocess.Popen(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--remote-debugging-port=0",
            "--window-size=800,900",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    port_file = f"{profile}/DevToolsActivePort"
    for _ in range(300):
        try:
            port = open(port_file).read().split()[0]
            break
        except (OSError, IndexError):
            time.sleep(0.1)
    else:
        process.kill()
        sys.exit("Chromium did not open its DevTools port")
    targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json", timeout=10))
    page = next(t for t in targets if t["type"] == "page")
    tab = Tab(page["webSocketDebuggerUrl"])
    tab.call("Page.enable")
    return process, tab


def landing(port, title):
    """Where Coffer sends the person back to (a partner's redirect URI, a merchant's return
    URL), listening on `port`: the server, and the query parameters the browser brings."""
    landed = {}

    class Landing(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the standard library's name
            landed.update({k: v[0] for k, v in parse_qs(urlparse(self.path).query).items()})
            body = f"<!doctype html><html lang=en><title>{title}</title><main><p>Back.</main>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body.encode())))
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", int(port)), Landing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, landed
