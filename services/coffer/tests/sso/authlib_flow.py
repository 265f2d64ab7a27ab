"""A partner's application signing a user in through Coffer with Authlib, a client library
Coffer did not write: the authorization-code flow with PKCE, the ID token validated against
Coffer's JWKS (iss, aud, exp, nonce, at_hash), then the failures a client must see.

Usage: authlib_flow.py BASE_URL CLIENT_ID CLIENT_SECRET REDIRECT_URI EMAIL PASSWORD
Prints a JSON report on stdout; exits non-zero when anything is not as it should be.
"""

import json
import sys
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlencode, urlparse, urlunparse

import requests
from authlib.common.security import generate_token
from authlib.integrations.base_client.errors import OAuthError
from authlib.integrations.requests_client import OAuth2Session
from authlib.oidc.core import CodeIDToken
from joserfc import jwt
from joserfc.jwk import KeySet
from joserfc.jws import JWSRegistry

BASE, CLIENT_ID, CLIENT_SECRET, REDIRECT, EMAIL, PASSWORD = sys.argv[1:7]
SCOPE = "openid email name"


class FormFields(HTMLParser):
    """The inputs of the page's form, as a browser would send them."""

    def __init__(self):
        super().__init__()
        self.fields = {}
        self.action = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.action = attrs.get("action")
        if tag == "input" and attrs.get("name"):
            self.fields[attrs["name"]] = attrs.get("value") or ""


def sign_in(authorize_url):
    """What the user's browser does: open the page, fill it in, post it. Answers the URL
    Coffer sends the browser back to."""
    browser = requests.Session()
    page = browser.get(authorize_url, timeout=10)
    assert page.status_code == 200, page.text
    form = FormFields()
    form.feed(page.text)
    assert form.action == "/oauth2/authorize", form.action
    fields = dict(form.fields, email=EMAIL, password=PASSWORD)
    answer = browser.post(BASE + form.action, data=fields, allow_redirects=False, timeout=10)
    assert answer.status_code == 302, (answer.status_code, answer.text)
    return answer.headers["Location"]


def session(secret=CLIENT_SECRET):
    return OAuth2Session(
        CLIENT_ID, secret, scope=SCOPE, redirect_uri=REDIRECT, code_challenge_method="S256"
    )


def authorize(meta, client):
    verifier, nonce = generate_token(48), generate_token(20)
    url, state = client.create_authorization_url(
        meta["authorization_endpoint"], code_verifier=verifier, nonce=nonce
    )
    return verifier, nonce, state, sign_in(url)


def failure(call):
    """The OAuth error (or the exception's class) a call ends in; None if it succeeds."""
    try:
        call()
    except OAuthError as e:
        return e.error
    except Exception as e:  # noqa: BLE001 - the class is the answer here
        return type(e).__name__
    return None


def main():
    report = {}
    meta = requests.get(BASE + "/.well-known/openid-configuration", timeout=10).json()
    keys = KeySet.import_key_set(requests.get(meta["jwks_uri"], timeout=10).json())

    client = session()
    verifier, nonce, state, callback = authorize(meta, client)
    assert parse_qs(urlparse(callback).query)["state"] == [state]
    token = client.fetch_token(
        meta["token_endpoint"],
        authorization_response=callback,
        code_verifier=verifier,
        state=state,
    )
    decoded = jwt.decode(token["id_token"], keys, registry=JWSRegistry(algorithms=["RS256"]))
    options = {
        "iss": {"essential": True, "value": meta["issuer"]},
        "aud": {"essential": True, "value": CLIENT_ID},
        "at_hash": {"essential": True},
    }
    params = {"nonce": nonce, "client_id": CLIENT_ID, "access_token": token["access_token"]}
    claims = CodeIDToken(decoded.claims, decoded.header, options=options, params=params)
    claims.validate(leeway=60)
    report["claims"] = {k: claims[k] for k in ("sub", "email", "name", "nonce") if k in claims}
    report["kid"] = decoded.header.get("kid")
    report["expires_in"] = token.get("expires_in")

    # A wrong nonce or another access token does not validate.
    wrong = CodeIDToken(decoded.claims, decoded.header, options=options, params=dict(params, nonce="x"))
    report["wrong_nonce"] = failure(lambda: wrong.validate(leeway=60))
    other = CodeIDToken(
        decoded.claims, decoded.header, options=options, params=dict(params, access_token="x")
    )
    report["wrong_access_token"] = failure(lambda: other.validate(leeway=60))

    # The same code again: refused.
    report["reused_code"] = failure(
        lambda: session().fetch_token(
            meta["token_endpoint"], authorization_response=callback, code_verifier=verifier
        )
    )

    # A callback whose state is not the one this client sent.
    client = session()
    verifier, _, state, callback = authorize(meta, client)
    parts = urlparse(callback)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    query["state"] = "forged"
    forged = urlunparse(parts._replace(query=urlencode(query)))
    report["wrong_state"] = failure(
        lambda: client.fetch_token(
            meta["token_endpoint"], authorization_response=forged, code_verifier=verifier, state=state
        )
    )

    # Another redirect_uri at the token endpoint than in the authorization request.
    client = session()
    verifier, _, state, callback = authorize(meta, client)
    client.redirect_uri = REDIRECT + "/elsewhere"
    report["wrong_redirect_uri"] = failure(
        lambda: client.fetch_token(
            meta["token_endpoint"], authorization_response=callback, code_verifier=verifier, state=state
        )
    )

    # Another PKCE verifier than the challenge was made from.
    client = session()
    _, _, state, callback = authorize(meta, client)
    report["wrong_verifier"] = failure(
        lambda: client.fetch_token(
            meta["token_endpoint"],
            authorization_response=callback,
            code_verifier=generate_token(48),
            state=state,
        )
    )

    # The right code with the wrong client secret.
    client = session()
    verifier, _, state, callback = authorize(meta, client)
    report["wrong_client_secret"] = failure(
        lambda: session("not-the-secret").fetch_token(
            meta["token_endpoint"], authorization_response=callback, code_verifier=verifier, state=state
        )
    )

    expected = {
        "wrong_nonce": "InvalidClaimError",
        "wrong_access_token": "InvalidClaimError",
        "reused_code": "invalid_grant",
        "wrong_state": "MismatchingStateException",
        "wrong_redirect_uri": "invalid_grant",
        "wrong_verifier": "invalid_grant",
        "wrong_client_secret": "invalid_client",
    }
    print(json.dumps(report, indent=2))
    mismatched = {k: report.get(k) for k, v in expected.items() if report.get(k) != v}
    if mismatched:
        sys.exit(f"unexpected outcomes: {mismatched}")


if __name__ == "__main__":
    main()
