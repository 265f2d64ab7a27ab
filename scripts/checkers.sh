#!/usr/bin/env bash
# Makes sure the third-party checkers the test suite runs are installed, in a venv of their
# own with pinned versions, and prints that venv's bin directory on stdout (progress goes
# to stderr). `make test` hands it to the tests as COFFER_TEST_CHECKERS. A run that finds
# them installed installs nothing; a fresh machine installs them once from PyPI.
set -euo pipefail

# shellcheck source=scripts/pinned-venv.sh
source "$(dirname "${BASH_SOURCE[0]}")/pinned-venv.sh"

TOOLS_DIR="${COFFER_TOOLS_DIR:-$HOME/.cache/coffer-tools}"
VENV="${TOOLS_DIR}/checkers-venv"
PACKAGES=(
    # The API description's validator (docs/api.md).
    "openapi-spec-validator==0.9.0"
    # Hostile input generated from the description (docs/api.md).
    "schemathesis==4.32.5"
    # Verifies webhook signatures as receivers do (docs/webhooks.md).
    "standardwebhooks==1.1.0"
    # A partner's OpenID Connect client, and the JOSE library it validates ID tokens with
    # (docs/partners.md).
    "Authlib==1.9.10"
    "joserfc==1.8.0"
    # Drives headless Chromium over the DevTools protocol through the login page.
    "websocket-client==1.8.0"
    # An S3 client for the upload tests (crates/uploads): its urllib3 posts the upload form
    # as a client would, and boto3 reads back through the S3 API what the store kept.
    "boto3==1.44.8"
    # Stripe's own SDK, whose parameter types scripts/check-stripe-params.py holds Coffer's
    # requests to: the major version that speaks the API version Coffer pins (2024-06-20).
    "stripe==10.12.0"
)

pinned_venv "$VENV" "${PACKAGES[@]}"
printf '%s\n' "${VENV}/bin"
