#!/usr/bin/env bash
# Makes sure Debian's Chromium is installed and prints its path on stdout (progress goes to
# stderr). The test of the browsable API reference (/docs) drives it headless; `make test`
# hands the path to the tests as COFFER_TEST_CHROMIUM.
set -euo pipefail

log() { printf 'chromium: %s\n' "$*" >&2; }

for candidate in "${CHROMIUM:-}" /usr/bin/chromium /usr/bin/chromium-browser; do
    if [[ -n "$candidate" && -x "$candidate" ]]; then
        printf '%s\n' "$candidate"
        exit 0
    fi
done

if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
    log "error: Chromium is missing; install Debian's chromium package (apt-get install chromium)"
    exit 1
fi
log "installing Debian's chromium"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends chromium >&2
[[ -x /usr/bin/chromium ]] || {
    log "error: /usr/bin/chromium is still missing after apt-get install"
    exit 1
}
printf '%s\n' /usr/bin/chromium
