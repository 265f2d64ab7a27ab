"""Headless Chromium driven over the DevTools protocol, for the tests that walk a person
through Coffer's pages (sso/browser_login.py, stripe/donor_page.py): start it on a profile of
its own, and drive its one tab.
"""

import json
import subprocess
import sys
import tempfile
import time
import urllib.request

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
