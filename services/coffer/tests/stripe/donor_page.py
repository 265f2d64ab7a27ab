"""A donor on Coffer's payment page in headless Chromium: open the page their payment sent
them to; when CARD is given, enter it into the provider's fields (localstripe's own) and pay;
then, unless the choice is `none`, press Confirm and answer the bank's challenge
(localstripe's own dialog: Complete or Fail authentication); and land on the merchant's
return URL (a listener of this script's own) or on Coffer's page saying how the payment
ended. Each page is checked with axe-core.

Usage: donor_page.py CHROMIUM AXE_JS PAGE_URL complete|fail|none RETURN_PORT [CARD]
Prints a JSON report on stdout: the page's language, its inline scripts, the
Content-Security-Policy violations it met, axe's violations on each page, where the donor
landed and the outcome page's heading.
"""

import json
import os
import sys
import time

import websocket

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from chromium import landing, start  # noqa: E402 - found through the path above

CHROMIUM, AXE_JS, PAGE_URL, CHOICE, RETURN_PORT = sys.argv[1:6]
CARD = sys.argv[6] if len(sys.argv) > 6 else None


def axe(tab):
    """axe-core's violations on the page as it stands (WCAG 2.1 A and AA, and best
    practice), by rule id and the markup that breaks it."""
    tab.evaluate(open(AXE_JS).read())
    return tab.evaluate(
        "axe.run(document, {runOnly: {type: 'tag', values: "
        "['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}})"
        ".then(r => r.violations.map(v => v.id + ': ' + v.nodes.map(n => n.html).join(' | ')))",
        await_promise=True,
    )


def main():
    server, landed = landing(RETURN_PORT, "Merchant")
    chromium, tab = start(CHROMIUM)
    try:
        # Counts what the policy refused on Coffer's pages, kept across them (the card
        # page posts its form as it goes, before a report could read it).
        tab.call(
            "Page.addScriptToEvaluateOnNewDocument",
            source="window.__refused = JSON.parse(sessionStorage.getItem('refused') || '[]');"
            " document.addEventListener('securitypolicyviolation', e => {"
            " window.__refused.push(e.violatedDirective + ' ' + e.blockedURI);"
            " sessionStorage.setItem('refused', JSON.stringify(window.__refused)); });",
        )
        tab.call("Page.navigate", url=PAGE_URL)
        report = {}
        if CARD:
            report |= enter_card(tab)
        if CHOICE != "none":
            report |= confirm(tab)
        finish(tab, report, landed)
        print(json.dumps(report))
    finally:
        chromium.kill()
        chromium.wait()
        server.shutdown()


def described(tab):
    return {
        "lang": tab.evaluate("document.documentElement.lang"),
        "title": tab.evaluate("document.title"),
        "inline_scripts": tab.evaluate("[...document.scripts].filter(s => !s.src).length"),
    }


def enter_card(tab):
    """The card page: the card typed into the provider's fields, and Pay pressed."""
    if not tab.wait_for("!!document.querySelector('#card input') && typeof Stripe === 'function'"):
        sys.exit("the payment page did not show the provider's card fields")
    report = {"card_page": described(tab), "axe_card_page": axe(tab)}
    number, month, year, cvc = CARD, "12", "34", "123"
    for field, value in [("number", number), ("exp_month", month), ("exp_year", year),
                         ("cvc", cvc), ("postal_code", "8000")]:
        tab.evaluate(
            f"(() => {{ const i = document.querySelector('#card input[placeholder={field}]');"
            f" i.value = '{value}'; i.dispatchEvent(new Event('input', {{bubbles: true}})); }})()"
        )
    tab.evaluate("document.getElementById('pay-card').click()")
    report["refused"] = []
    return report


def confirm(tab):
    """The challenge's page: Confirm pressed, and the bank's challenge answered."""
    if not tab.wait_for("!!document.getElementById('confirm') && typeof Stripe === 'function'"):
        sys.exit("the payment page did not show its Confirm button with Stripe's script")
    report = described(tab) | {"axe_page": axe(tab)}
    tab.evaluate("document.getElementById('confirm').click()")
    label = "Complete authentication" if CHOICE == "complete" else "Fail authentication"
    pick = f"[...document.querySelectorAll('button')].find(b => b.innerText === '{label}')"
    if not tab.wait_for(f"!!{pick}"):
        sys.exit("the bank's challenge did not show")
    report["refused"] = tab.evaluate("window.__refused")
    tab.evaluate(f"{pick}.click()")
    return report


def finish(tab, report, landed):
    """Where the donor lands: the merchant's return URL, or Coffer's outcome page."""
    deadline = time.time() + 30
    while time.time() < deadline and not landed:
        try:
            if tab.evaluate("!!document.getElementById('outcome')"):
                break
        except (RuntimeError, websocket.WebSocketException):
            pass
        time.sleep(0.1)
    report["landed"] = dict(landed)
    if not landed:
        if not tab.wait_for("!!document.getElementById('outcome')"):
            sys.exit("the donor landed neither on the return URL nor on the outcome page")
        report["outcome"] = tab.evaluate("document.getElementById('outcome').innerText")
        report["outcome_lang"] = tab.evaluate("document.documentElement.lang")
        report["axe_outcome"] = axe(tab)
        report["refused"] = tab.evaluate("window.__refused") or []


if __name__ == "__main__":
    main()
