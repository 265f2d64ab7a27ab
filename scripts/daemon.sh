# shellcheck shell=bash
# Sourced by the scripts that keep a test server running in the background (kafka.sh, s3.sh,
# sftp.sh): starting it detached with a pid file, waiting until it answers, stopping it, and
# the lock that keeps parallel runs from starting two. What differs between the servers is
# passed in: LABEL prefixes every message (`LABEL: ...` on stderr), NAME is how messages call
# the server ("tansu", "the SFTP server"), PROCESS is a string its /proc/PID/cmdline holds,
# and ADDRESS is the HOST:PORT it listens on. A failure exits the calling script.

daemon_log() {
    local label="$1"
    shift
    printf '%s: %s\n' "$label" "$*" >&2
}

daemon_die() {
    local label="$1"
    shift
    daemon_log "$label" "error: $*"
    exit 1
}

daemon_usage() {
    printf 'usage: %s [start|stop]\n' "${0##*/}" >&2
    exit "${1:-2}"
}

# daemon_check_port LABEL VARIABLE VALUE: dies unless VALUE (read from VARIABLE) is a TCP port.
daemon_check_port() {
    local label="$1" variable="$2" port="$3"
    if ! [[ "$port" =~ ^[0-9]+$ ]] || ((port < 1 || port > 65535)); then
        daemon_die "$label" "${variable}=${port} is not a TCP port"
    fi
}

# daemon_port_open ADDRESS: whether something accepts connections on HOST:PORT.
daemon_port_open() {
    local address="$1"
    # A subshell keeps the probe's file descriptor from leaking into this shell, and
    # timeout stops a filtered port from hanging the check.
    timeout 2 bash -c ": </dev/tcp/${address%:*}/${address##*:}" 2>/dev/null
}

daemon_pid_alive() {
    local pid="$1"
    [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null
}

# daemon_recorded_pid PID_FILE PROCESS: prints the pid PID_FILE names if that process runs.
# A pid file can outlive its process and the pid be reused, so only a live process that is
# actually the server (PROCESS in its command line) counts.
daemon_recorded_pid() {
    local pid_file="$1" process="$2" pid
    [[ -r "$pid_file" ]] || return 1
    pid="$(tr -d '[:space:]' <"$pid_file")"
    daemon_pid_alive "$pid" || return 1
    if [[ -r "/proc/${pid}/cmdline" ]] && ! tr '\0' ' ' <"/proc/${pid}/cmdline" | grep -qF -- "$process"; then
        return 1
    fi
    printf '%s\n' "$pid"
}

# daemon_take_lock LABEL LOCK_FILE TIMEOUT_SECS: holds LOCK_FILE on fd 9 until the script
# exits. Serialises concurrent starts (parallel test jobs) so only one server is spawned.
daemon_take_lock() {
    local label="$1" lock_file="$2" timeout_secs="$3"
    mkdir -p "$(dirname "$lock_file")"
    if command -v flock >/dev/null 2>&1; then
        exec 9>"$lock_file"
        flock -w "$timeout_secs" 9 || daemon_die "$label" "timed out waiting for ${lock_file}"
    fi
}

# daemon_stop LABEL NAME KIND PID_FILE PROCESS ADDRESS: stops the server PID_FILE names, first
# with SIGTERM, then SIGKILL; leaves alone whatever else answers on ADDRESS. KIND is what
# "no KIND running" calls it ("broker", "object store").
daemon_stop() {
    local label="$1" name="$2" kind="$3" pid_file="$4" process="$5" address="$6" pid _
    if ! pid="$(daemon_recorded_pid "$pid_file" "$process")"; then
        rm -f "$pid_file"
        if daemon_port_open "$address"; then
            daemon_log "$label" "something answers on ${address} but it was not started by this script; leaving it alone"
        else
            daemon_log "$label" "no ${kind} running on ${address}"
        fi
        return 0
    fi
    daemon_log "$label" "stopping ${name} (pid ${pid}) on ${address}"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
        daemon_pid_alive "$pid" || break
        sleep 0.2
    done
    if daemon_pid_alive "$pid"; then
        daemon_log "$label" "${name} ignored SIGTERM; sending SIGKILL"
        kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$pid_file"
}

daemon_show_log_tail() {
    local label="$1" log_file="$2"
    if [[ -r "$log_file" ]]; then
        daemon_log "$label" "last lines of ${log_file}:"
        tail -n 40 "$log_file" >&2
    fi
}

# daemon_start LABEL NAME PID_FILE LOG_FILE ADDRESS COMMAND [ARG...]: runs COMMAND detached,
# its output appended to LOG_FILE and its pid in PID_FILE, and returns once something answers
# on ADDRESS; exits the script when the server dies first or does not answer in time.
daemon_start() {
    local label="$1" name="$2" pid_file="$3" log_file="$4" address="$5" pid _
    local ready_timeout_secs=30
    shift 5
    rm -f "$pid_file"
    printf '\n--- %s starting %s on %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$name" "$address" >>"$log_file"
    # The inner shell records its own pid and then execs the server, so the pid file names
    # the server itself whether or not setsid had to fork. setsid + nohup detach it from
    # this script's session so it outlives the caller (and CI's step).
    # It also closes every inherited descriptor above stderr: a pipe held open by the
    # long-lived server would make a caller's $(...) or CI log reader wait forever, and
    # fd 9 would keep the start lock taken.
    # shellcheck disable=SC2016 # expanded by the inner shell
    nohup setsid bash -c '
            fds=(/proc/$$/fd/*)
            for fd in "${fds[@]##*/}"; do
                # The handle the glob read the directory with is already closed.
                if [[ "$fd" -gt 2 && -e /proc/$$/fd/$fd ]]; then eval "exec ${fd}>&-"; fi
            done
            echo $$ >"$1"
            shift
            exec "$@"
        ' _ "$pid_file" "$@" \
        </dev/null >>"$log_file" 2>&1 &
    disown 2>/dev/null || true

    for _ in $(seq 1 $((ready_timeout_secs * 5))); do
        if daemon_port_open "$address"; then
            daemon_log "$label" "${name} answers on ${address} (pid $(cat "$pid_file" 2>/dev/null || echo '?'))"
            return 0
        fi
        # Fail fast when the server died (port clash, bad flag, bad key) instead of waiting
        # out the timeout.
        if [[ -s "$pid_file" ]]; then
            pid="$(tr -d '[:space:]' <"$pid_file")"
            if ! daemon_pid_alive "$pid"; then
                daemon_log "$label" "${name} (pid ${pid}) exited before answering on ${address}"
                daemon_show_log_tail "$label" "$log_file"
                rm -f "$pid_file"
                exit 1
            fi
        fi
        sleep 0.2
    done
    daemon_log "$label" "${name} did not answer on ${address} within ${ready_timeout_secs} s"
    daemon_show_log_tail "$label" "$log_file"
    exit 1
}
