#!/usr/bin/env bash
# Makes sure localstripe (PyPI, pinned), a stateful implementation of Stripe's API, answers
# on 127.0.0.1:${LOCALSTRIPE_PORT:-18420}, and prints its base URL on stdout; all progress
# goes to stderr so callers can capture it with $(...).
#
#   scripts/localstripe.sh         start it if nothing answers yet, print http://127.0.0.1:PORT
#   scripts/localstripe.sh stop    stop the server this script started on that port
#
# localstripe pickles its whole store to the fixed path /tmp/localstripe.pickle after every
# write. Each server this script starts gets a /tmp of its own (a private mount namespace
# with the server's state directory bound over /tmp), so two servers on two ports never
# share state, and nothing else in /tmp is touched. It starts with --from-scratch; a test
# never resets it (`DELETE /_config/data` would wipe other tests' objects), it makes its
# own objects instead. It binds every address (`::`), which is why it keeps to a port of
# its own above the usual ones.
set -euo pipefail

# shellcheck source=scripts/pinned-venv.sh
source "$(dirname "${BASH_SOURCE[0]}")/pinned-venv.sh"
# shellcheck source=scripts/daemon.sh
source "$(dirname "${BASH_SOURCE[0]}")/daemon.sh"

PORT="${LOCALSTRIPE_PORT:-18420}"
TOOLS_DIR="${COFFER_TOOLS_DIR:-$HOME/.cache/coffer-tools}"
VENV="${TOOLS_DIR}/localstripe-venv"
PACKAGE=localstripe
PACKAGE_VERSION=1.15.10
STATE_DIR="${TOOLS_DIR}/localstripe-${PORT}"
LOG_FILE="${TOOLS_DIR}/localstripe-${PORT}.log"
PID_FILE="${TOOLS_DIR}/localstripe-${PORT}.pid"
LOCK_FILE="${TOOLS_DIR}/localstripe-${PORT}.lock"
ADDRESS="127.0.0.1:${PORT}"

log() { daemon_log localstripe "$@"; }
die() { daemon_die localstripe "$@"; }
take_lock() { daemon_take_lock localstripe "$LOCK_FILE" 120; }

daemon_check_port localstripe LOCALSTRIPE_PORT "$PORT"

case "${1:-start}" in
start) ;;
stop)
    take_lock
    daemon_stop localstripe "localstripe" "localstripe server" "$PID_FILE" localstripe "$ADDRESS"
    exit 0
    ;;
-h | --help) daemon_usage 0 ;;
*) daemon_usage ;;
esac

take_lock
pinned_venv "$VENV" "${PACKAGE}==${PACKAGE_VERSION}"

if daemon_port_open "$ADDRESS"; then
    if daemon_recorded_pid "$PID_FILE" localstripe >/dev/null; then
        log "localstripe already answers on ${ADDRESS}"
    else
        log "something already answers on ${ADDRESS}; assuming it is localstripe"
    fi
else
    command -v unshare >/dev/null 2>&1 || die "unshare (util-linux) is needed to give localstripe a /tmp of its own"
    rm -rf "${STATE_DIR}/tmp"
    # Its pickle holds the test cards it was sent: only this user reads it.
    mkdir -p "${STATE_DIR}/tmp"
    chmod 700 "$STATE_DIR" "${STATE_DIR}/tmp"
    # Root mounts in a namespace of its own; anyone else maps themselves to root in a user
    # namespace first, which unprivileged users may do on Debian.
    as_root=()
    [[ "$(id -u)" == 0 ]] || as_root=(--user --map-root-user)
    log "starting localstripe ${PACKAGE_VERSION} on ${ADDRESS}, its /tmp at ${STATE_DIR}/tmp (log: ${LOG_FILE})"
    # unshare execs in place, so the recorded pid stays the server's own through both execs.
    # shellcheck disable=SC2016 # expanded by the inner shell
    daemon_start localstripe "localstripe" "$PID_FILE" "$LOG_FILE" "$ADDRESS" \
        unshare "${as_root[@]}" --mount --propagation private bash -c \
        'mount --bind "$1" /tmp && exec "$2" --port "$3" --from-scratch' \
        _ "${STATE_DIR}/tmp" "${VENV}/bin/localstripe" "$PORT"
fi
printf 'http://%s\n' "$ADDRESS"
