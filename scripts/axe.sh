#!/usr/bin/env bash
# Makes sure axe-core (npm, pinned), the accessibility checker the page tests run inside
# Chromium, is installed, and prints the path of its axe.min.js on stdout; progress goes to
# stderr. `make test` hands the path to the tests as COFFER_TEST_AXE.
set -euo pipefail

VERSION=4.10.2
TOOLS_DIR="${COFFER_TOOLS_DIR:-$HOME/.cache/coffer-tools}"
DIR="${TOOLS_DIR}/axe-core-${VERSION}"
FILE="${DIR}/node_modules/axe-core/axe.min.js"

if [[ ! -s "$FILE" ]]; then
    command -v npm >/dev/null 2>&1 || {
        printf 'axe: error: npm is needed to install axe-core (apt-get install npm)\n' >&2
        exit 1
    }
    printf 'axe: installing axe-core %s into %s\n' "$VERSION" "$DIR" >&2
    mkdir -p "$DIR"
    npm install --silent --no-audit --no-fund --prefix "$DIR" "axe-core@${VERSION}" >&2
fi
[[ -s "$FILE" ]] || {
    printf 'axe: error: %s is missing after the install\n' "$FILE" >&2
    exit 1
}
printf '%s\n' "$FILE"
