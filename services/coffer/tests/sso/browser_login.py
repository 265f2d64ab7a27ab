"""A person signing in through Coffer's login page in headless Chromium: open the
authorization URL, fill in e-mail and password, submit, and land on the partner's
redirect URI (a listener of this script's own) with a code.

Usage: browser_login.py CHROMIUM AUTHORIZE_URL REDIRECT_PORT EMAIL PASSWORD SCREENSHOT
Prints a JSON report on stdout; exits non-zero when the browser does not land with a code.
The page is driven over the DevTools protocol, which is how a person's typing reaches it:
the page itself runs no script of its own.
"""

import base64
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from chromium import landing, start  # noqa: E402 - found through the path above

CHROMIUM, AUTHORIZE_URL, REDIRECT_PORT, EMAIL, PASSWORD, SCREENSHOT = sys.argv[1:7]


def main():
    server, landed = landing(REDIRECT_PORT, "Partner")
    chromium, tab = start(CHROMIUM)
    try:
        tab.call("Page.navigate", url=AUTHORIZE_URL)
        if not tab.wait_for("!!document.querySelector('input[name=password]')"):
            sys.exit("the login page did not show a password field")
        report = {
            "title": tab.evaluate("document.title"),
            "lang": tab.evaluate("document.documentElement.lang"),
            "scripts": tab.evaluate("document.scripts.length"),
        }
        shot = tab.call("Page.captureScreenshot", format="png")["data"]
        with open(SCREENSHOT, "wb") as f:
            f.write(base64.b64decode(shot))
        # Typing and clicking, as a person would; the form submits itself (no script).
        tab.evaluate(
            f"document.querySelector('input[name=email]').value = {json.dumps(EMAIL)};"
            f"document.querySelector('input[name=password]').value = {json.dumps(PASSWORD)};"
            "document.querySelector('button[type=submit]').click(); true"
        )
        deadline = time.time() + 20
        while "code" not in landed and time.time() < deadline:
            time.sleep(0.1)
        report["landed"] = landed
        report["final_url"] = tab.evaluate("location.href")
        print(json.dumps(report, indent=2))
        if "code" not in landed:
            sys.exit("the browser did not land on the redirect URI with a code")
    finally:
        chromium.kill()
        chromium.wait()
        server.shutdown()


if __name__ == "__main__":
    main()
