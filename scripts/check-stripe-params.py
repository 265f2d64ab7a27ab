#!/usr/bin/env python3
"""Checks the requests Coffer sent to Stripe against the parameter types of Stripe's own
Python SDK (PyPI `stripe`, pinned in scripts/checkers.sh to the major version whose API
version Coffer pins: 10.x speaks 2024-06-20, client.rs's STRIPE_VERSION).

It reads a file scripts/fault-proxy.py recorded (one JSON line per request: method, path,
parameter names and their values' kinds) and, for every request, finds the SDK's params
class of that operation and follows each parameter name through it (`card[exp_month]`,
`metadata[key]`, `payment_method_types[]`). It fails, naming each, on an operation the table
below does not know, on a name the SDK does not have, and on a value of the wrong kind (an
integer or boolean sent as text).

  check-stripe-params.py RECORD      exit 0 when every request is one Stripe takes
"""

from __future__ import annotations

import json
import re
import sys
import typing

import stripe

# (method, path pattern) -> the SDK's params class of that operation.
OPERATIONS = [
    ("POST", r"/v1/payment_methods", stripe.PaymentMethod.CreateParams),
    ("POST", r"/v1/payment_intents", stripe.PaymentIntent.CreateParams),
    ("POST", r"/v1/payment_intents/[^/]+/confirm", stripe.PaymentIntent.ConfirmParams),
    ("POST", r"/v1/payment_intents/[^/]+/cancel", stripe.PaymentIntent.CancelParams),
    ("POST", r"/v1/payment_intents/[^/]+", stripe.PaymentIntent.ModifyParams),
    ("GET", r"/v1/payment_intents/[^/]+", stripe.PaymentIntent.RetrieveParams),
    ("GET", r"/v1/payment_intents", stripe.PaymentIntent.ListParams),
    ("POST", r"/v1/refunds", stripe.Refund.CreateParams),
    ("GET", r"/v1/tokens/[^/]+", stripe.Token.RetrieveParams),
    ("POST", r"/v1/customers", stripe.Customer.CreateParams),
    ("POST", r"/v1/setup_intents", stripe.SetupIntent.CreateParams),
    ("POST", r"/v1/setup_intents/[^/]+/confirm", stripe.SetupIntent.ConfirmParams),
    ("POST", r"/v1/setup_intents/[^/]+/cancel", stripe.SetupIntent.CancelParams),
]
# Options of the SDK's own, sent as headers and never as parameters.
SDK_OPTIONS = {"api_key", "stripe_version", "stripe_account", "max_network_retries",
               "idempotency_key", "content_type", "headers"}
WRAPPERS = ("NotRequired", "Required", "Optional")


def resolve(annotation):
    """An annotation with its forward references looked up in the SDK."""
    if isinstance(annotation, typing.ForwardRef):
        annotation = annotation.__forward_arg__
    if isinstance(annotation, str):
        annotation = eval(annotation, vars(stripe) | vars(typing))  # noqa: S307 - the SDK's own text
    origin = typing.get_origin(annotation)
    if origin is not None and getattr(origin, "_name", None) in WRAPPERS or (
        origin is typing.Union and type(None) in typing.get_args(annotation)
    ):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        return resolve(options[0]) if len(options) == 1 else typing.Union[tuple(options)]
    name = getattr(annotation, "_name", None) or getattr(origin, "_name", None)
    if name in WRAPPERS:
        return resolve(typing.get_args(annotation)[0])
    return annotation


def alternatives(annotation) -> list:
    annotation = resolve(annotation)
    if typing.get_origin(annotation) is typing.Union:
        return [resolve(a) for a in typing.get_args(annotation)]
    return [annotation]


def accepts(annotation, path: list[str], kind: str) -> bool:
    """Whether a value of `kind` may stand at `path` inside `annotation`."""
    for option in alternatives(annotation):
        origin = typing.get_origin(option)
        if path:
            step, rest = path[0], path[1:]
            if hasattr(option, "__annotations__") and not origin:
                fields = option.__annotations__
                if step in fields and accepts(fields[step], rest, kind):
                    return True
            elif origin in (list, typing.List) and (step == "" or step.isdigit()):
                if accepts(typing.get_args(option)[0], rest, kind):
                    return True
            elif origin in (dict, typing.Dict) and step != "":
                if accepts(typing.get_args(option)[1], rest, kind):
                    return True
            continue
        if option is int and kind == "digits":
            return True
        if option is bool and kind == "bool":
            return True
        if option is str or typing.get_origin(option) is typing.Literal:
            return True
    return False


def check(request: dict) -> list[str]:
    method, path = request["method"], request["path"]
    for op_method, pattern, params in OPERATIONS:
        if op_method == method and re.fullmatch(pattern, path):
            break
    else:
        return [f"{method} {path}: not an operation Coffer is known to call"]
    problems = []
    for name, kind in request["params"].items():
        found = re.match(r"^[^\[]+", name)
        if found is None:
            problems.append(f"{method} {path}: {name}: not a parameter name")
            continue
        head = found.group(0)
        steps = re.findall(r"\[([^\]]*)\]", name)
        fields = params.__annotations__
        if head in SDK_OPTIONS or head not in fields:
            problems.append(f"{method} {path}: {name}: {params.__qualname__} has no {head}")
        elif not accepts(fields[head], steps, kind):
            problems.append(f"{method} {path}: {name}: a {kind} value does not fit {params.__qualname__}")
    return problems


def main(record: str) -> int:
    problems, requests = [], 0
    with open(record, encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                requests += 1
                problems += check(json.loads(line))
    for problem in problems:
        print(f"check-stripe-params: {problem}", file=sys.stderr)
    print(f"check-stripe-params: {requests} requests, {len(problems)} problems (stripe {stripe.VERSION}, API {stripe.api_version})")
    return 1 if problems or requests == 0 else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
