#!/usr/bin/env python3
"""Card payments through Stripe's API, two ways, from the same client (docs/benchmarks.md):

  localstripe  the three calls Coffer's Stripe connector makes per payment (a PaymentMethod,
               an unconfirmed PaymentIntent, its confirmation), straight to localstripe;
  coffer       POST /payments with a card profile served by that connector, through Coffer.

Each run starts from an empty localstripe (`DELETE /_config/data`), since localstripe writes
its whole store to disk after every write and slows as it fills. Prints one JSON line per
run: payments, clients, seconds, payments per second, p50 and p99 in milliseconds.

Usage: bench_stripe.py localstripe STRIPE_API COUNT CLIENTS
       bench_stripe.py coffer STRIPE_API COUNT CLIENTS BASE_URL CREDENTIALS_JSON
"""

import base64
import json
import sys
import time
import urllib.parse
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor

KEY = "sk_test_51HcofferStripeBenchKey00000000001"
CARD = {"number": "4242424242424242", "exp_month": "12", "exp_year": "2031", "cvc": "123"}


def call(method, url, body=None, headers=None, form=None):
    data = None
    headers = dict(headers or {})
    if form is not None:
        data = urllib.parse.urlencode(form).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    elif body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=60) as answer:
        return answer.status, json.loads(answer.read() or b"null")


def stripe(api, path, form):
    auth = "Basic " + base64.b64encode(f"{KEY}:".encode()).decode()
    return call("POST", f"{api}{path}", form=form, headers={"Authorization": auth})[1]


def direct_payment(api):
    """What the connector asks of Stripe for one card payment."""
    payment = str(uuid.uuid4())
    method = stripe(api, "/v1/payment_methods", {
        "type": "card", **{f"card[{k}]": v for k, v in CARD.items()},
        "billing_details[name]": "Ada Lovelace",
    })
    intent = stripe(api, "/v1/payment_intents", {
        "amount": "2500", "currency": "eur", "payment_method": method["id"],
        "payment_method_types[]": "card", "metadata[coffer_payment_uuid]": payment,
    })
    confirmed = stripe(api, f"/v1/payment_intents/{intent['id']}/confirm", {})
    assert confirmed["status"] == "succeeded", confirmed


def coffer_payment(base, bearer, account):
    status, paid = call("POST", f"{base}/payments", body={
        "account_uuid": account, "payment_method": "card", "profile": "card_stripe",
        "amount": {"value": 2500, "currency": "EUR"},
        "payment_information": {
            "number": CARD["number"], "expiry_month": 12, "expiry_year": 2031,
            "cvv": CARD["cvc"], "cardholder": "Ada Lovelace",
        },
    }, headers={"Authorization": bearer, "Idempotency-Key": str(uuid.uuid4())})
    assert status == 201 and paid["status"] == "succeeded", paid


def timed(one, count, clients):
    def each(_):
        started = time.perf_counter()
        one()
        return time.perf_counter() - started

    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        latencies = sorted(pool.map(each, range(count)))
    seconds = time.perf_counter() - started
    return {
        "payments": count,
        "clients": clients,
        "seconds": round(seconds, 2),
        "per_second": round(count / seconds, 1),
        "p50_ms": round(latencies[len(latencies) // 2] * 1000, 1),
        "p99_ms": round(latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000, 1),
    }


def main():
    way, api, count, clients = sys.argv[1], sys.argv[2].rstrip("/"), int(sys.argv[3]), int(sys.argv[4])
    if count > 1000:
        sys.exit("at most 1,000 payments: localstripe slows as it fills")
    call("DELETE", f"{api}/_config/data")
    if way == "localstripe":
        result = timed(lambda: direct_payment(api), count, clients)
    else:
        base, credentials = sys.argv[5].rstrip("/"), json.load(open(sys.argv[6]))
        _, token = call("POST", f"{base}/oauth2/token", headers={}, form={
            "grant_type": "client_credentials", "client_id": credentials["client_id"],
            "client_secret": credentials["client_secret"],
        })
        bearer = f"Bearer {token['access_token']}"
        account = credentials["account_uuids"][0]
        result = timed(lambda: coffer_payment(base, bearer, account), count, clients)
    print(json.dumps({"way": way, **result}))


if __name__ == "__main__":
    main()
