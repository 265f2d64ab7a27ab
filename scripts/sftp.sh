#!/usr/bin/env bash
# Makes sure a test SFTP server answers on 127.0.0.1:${SFTP_PORT:-19022} and prints how to
# reach it on stdout as one line of JSON; all progress goes to stderr so callers can capture
# it with $(...). `make test` hands that line to the tests as COFFER_TEST_SFTP:
#
#   {"host":"127.0.0.1","port":19022,"user":"coffer-test","password":"...",
#    "client_key":"/.../client_ed25519","client_public_key":"ssh-ed25519 AAAA...",
#    "host_key":"ssh-ed25519 AAAA...","root":"/.../root"}
#
# client_key is an OpenSSH private key the server accepts for that user (as is the
# password), host_key is the server's public key to pin, and root is the directory every
# session sees as "/", so a test can drop a file there and find it over SFTP.
#
#   scripts/sftp.sh         start the server if nothing answers yet, print the JSON
#   scripts/sftp.sh stop    stop the server this script started on that port
#
# The server is scripts/sftp-server.py on asyncssh, in a venv of its own with a pinned
# version. Its keys are made once and kept under the tools directory, so the host key the
# tests pin does not change between runs.
set -euo pipefail

# shellcheck source=scripts/pinned-venv.sh
source "$(dirname "${BASH_SOURCE[0]}")/pinned-venv.sh"
# shellcheck source=scripts/daemon.sh
source "$(dirname "${BASH_SOURCE[0]}")/daemon.sh"

PORT="${SFTP_PORT:-19022}"
TOOLS_DIR="${COFFER_TOOLS_DIR:-$HOME/.cache/coffer-tools}"
VENV="${TOOLS_DIR}/sftp-venv"
PACKAGE=asyncssh
PACKAGE_VERSION=2.24.1
SERVER_SCRIPT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/sftp-server.py"
STATE_DIR="${TOOLS_DIR}/sftp-${PORT}"
ROOT_DIR="${STATE_DIR}/root"
# A throwaway account on a server that listens on loopback only and serves test files.
SFTP_USER=coffer-test
SFTP_PASSWORD=coffer-test-password
LOG_FILE="${TOOLS_DIR}/sftp-${PORT}.log"
PID_FILE="${TOOLS_DIR}/sftp-${PORT}.pid"
LOCK_FILE="${TOOLS_DIR}/sftp-${PORT}.lock"
ADDRESS="127.0.0.1:${PORT}"

log() { daemon_log sftp "$@"; }
die() { daemon_die sftp "$@"; }
take_lock() { daemon_take_lock sftp "$LOCK_FILE" 120; }

start_server() {
    log "starting asyncssh ${PACKAGE_VERSION} SFTP on ${ADDRESS}, root ${ROOT_DIR} (log: ${LOG_FILE})"
    daemon_start sftp "the SFTP server" "$PID_FILE" "$LOG_FILE" "$ADDRESS" \
        "${VENV}/bin/python" -u "$SERVER_SCRIPT" serve \
        "$STATE_DIR" "$ROOT_DIR" "$PORT" "$SFTP_USER" "$SFTP_PASSWORD"
}

print_info() {
    "${VENV}/bin/python" "$SERVER_SCRIPT" info \
        "$STATE_DIR" "$ROOT_DIR" "$PORT" "$SFTP_USER" "$SFTP_PASSWORD" ||
        die "could not describe the SFTP server (keys under ${STATE_DIR})"
}

daemon_check_port sftp SFTP_PORT "$PORT"

case "${1:-start}" in
start) ;;
stop)
    take_lock
    daemon_stop sftp "the SFTP server" "SFTP server" "$PID_FILE" sftp-server.py "$ADDRESS"
    exit 0
    ;;
-h | --help) daemon_usage 0 ;;
*) daemon_usage ;;
esac

# The venv and the keys are needed to describe the server even when it already runs.
take_lock
pinned_venv "$VENV" "${PACKAGE}==${PACKAGE_VERSION}"
"${VENV}/bin/python" "$SERVER_SCRIPT" keys "$STATE_DIR" || die "could not create the keys under ${STATE_DIR}"
mkdir -p "$ROOT_DIR"

if daemon_port_open "$ADDRESS"; then
    if daemon_recorded_pid "$PID_FILE" sftp-server.py >/dev/null; then
        log "the SFTP server already answers on ${ADDRESS}"
    else
        log "something already answers on ${ADDRESS}; assuming it is the SFTP server"
    fi
else
    start_server
fi
print_info
