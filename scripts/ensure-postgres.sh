#!/usr/bin/env bash
# Makes sure a PostgreSQL server answers on 127.0.0.1:${PGPORT:-5432} and that the
# passwordless `coffer_test` role and database the Coffer test suite expects exist.
# Progress goes to stderr so that stdout carries only the final connection URL.
set -euo pipefail

PORT="${PGPORT:-5432}"
ROLE=coffer_test
DATABASE=coffer_test
# Only used when the machine has no Debian cluster on $PORT; kept under /var/tmp so
# it survives reboots and later runs reuse it instead of paying for initdb again.
SCRATCH_DIR="/var/tmp/coffer-pg-${PORT}"
SCRATCH_DATA="${SCRATCH_DIR}/data"
SCRATCH_LOG="${SCRATCH_DIR}/server.log"

# Where the superuser fallback looks for the server's unix socket. When the server
# was already up we cannot tell which kind it is, so every usual place is tried.
SOCKET_DIRS=(/var/run/postgresql "${SCRATCH_DIR}/run" /tmp)
SOCKET_DIR=""
SERVER_LOG=""

log() { printf 'ensure-postgres: %s\n' "$*" >&2; }
die() {
    log "error: $*"
    exit 1
}

is_root() { [[ "$(id -u)" -eq 0 ]]; }

APT_UPDATED=0
apt_install() {
    if ! is_root || ! command -v apt-get >/dev/null 2>&1; then
        die "missing: $* (install it, or re-run as root on a Debian-like system to install it automatically)"
    fi
    log "installing $*"
    # apt writes progress to stdout, which would pollute the URL this script prints.
    if [[ "$APT_UPDATED" -eq 0 ]]; then
        apt-get update >&2
        APT_UPDATED=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y "$@" >&2
}

# Newest server binaries win, since a fresh cluster should match what apt installs now.
server_bin_dir() {
    local dir
    dir="$(find /usr/lib/postgresql -maxdepth 3 -path '*/bin/initdb' 2>/dev/null |
        sort -V | tail -n 1)"
    if [[ -n "$dir" ]]; then
        dirname "$dir"
    elif command -v initdb >/dev/null 2>&1; then
        dirname "$(command -v initdb)"
    fi
}

server_installed() {
    command -v pg_ctlcluster >/dev/null 2>&1 || [[ -n "$(server_bin_dir)" ]]
}

# Debian only puts the client wrappers on PATH, so fall back to the versioned dir.
pg_tool() {
    local name="$1" bin_dir
    if command -v "$name" >/dev/null 2>&1; then
        command -v "$name"
        return
    fi
    bin_dir="$(server_bin_dir)"
    if [[ -n "$bin_dir" && -x "$bin_dir/$name" ]]; then
        printf '%s\n' "$bin_dir/$name"
        return
    fi
    return 1
}

is_ready() {
    local pg_isready
    pg_isready="$(pg_tool pg_isready)" || return 1
    "$pg_isready" -q -h 127.0.0.1 -p "$PORT"
}

# Server processes refuse to run as root, so anything that touches a data directory
# runs as the postgres account when we are root. `cd /` avoids warnings when that
# account cannot read the caller's working directory.
as_postgres() {
    if ! is_root; then
        "$@"
    elif command -v runuser >/dev/null 2>&1; then
        (cd / && runuser -u postgres -- "$@")
    else
        (cd / && su postgres -s /bin/bash -c "$(printf '%q ' "$@")")
    fi
}

wait_until_ready() {
    local _
    for _ in $(seq 1 30); do
        if is_ready; then
            return 0
        fi
        sleep 1
    done
    log "PostgreSQL did not answer on 127.0.0.1:${PORT} within 30 s"
    if [[ -n "$SERVER_LOG" && -r "$SERVER_LOG" ]]; then
        log "last lines of ${SERVER_LOG}:"
        tail -n 40 "$SERVER_LOG" >&2
    fi
    exit 1
}

# Prints "version name status logfile" of the Debian cluster configured for $PORT.
debian_cluster_on_port() {
    command -v pg_lsclusters >/dev/null 2>&1 || return 1
    pg_lsclusters -h 2>/dev/null | awk -v port="$PORT" '$3 == port { print $1, $2, $4, $7; exit }' |
        grep . || return 1
}

start_debian_cluster() {
    local version="$1" name="$2" status="$3" logfile="${4:-}"
    SERVER_LOG="$logfile"
    if [[ -z "$SERVER_LOG" || ! -e "$SERVER_LOG" ]]; then
        SERVER_LOG="/var/log/postgresql/postgresql-${version}-${name}.log"
    fi
    if [[ "$status" == down* ]]; then
        log "starting Debian cluster ${version}/${name}"
        # Containers have no systemd, and the redirect would make the start fail there.
        pg_ctlcluster --skip-systemctl-redirect "$version" "$name" start >&2 ||
            log "pg_ctlcluster reported a failure; waiting in case the server comes up anyway"
    else
        log "Debian cluster ${version}/${name} is ${status} but not answering on 127.0.0.1:${PORT}; waiting"
    fi
}

start_scratch_cluster() {
    local bin_dir
    bin_dir="$(server_bin_dir)"
    [[ -n "$bin_dir" ]] || die "no initdb found; cannot create a PostgreSQL cluster"
    if is_root && ! id postgres >/dev/null 2>&1; then
        die "the 'postgres' system user is missing; install the postgresql package or create that user"
    fi

    mkdir -p "$SCRATCH_DIR/run"
    if is_root; then
        chown -R postgres:postgres "$SCRATCH_DIR"
    fi
    SOCKET_DIRS=("$SCRATCH_DIR/run")
    SERVER_LOG="$SCRATCH_LOG"

    if [[ ! -f "$SCRATCH_DATA/PG_VERSION" ]]; then
        log "creating a throw-away cluster in ${SCRATCH_DATA}"
        # -U postgres keeps the superuser name stable even when a non-root user runs this.
        as_postgres "$bin_dir/initdb" -D "$SCRATCH_DATA" -A trust -U postgres -E UTF8 --no-locale >&2
    fi

    log "starting the throw-away cluster in ${SCRATCH_DATA} on port ${PORT}"
    as_postgres "$bin_dir/pg_ctl" -D "$SCRATCH_DATA" -l "$SCRATCH_LOG" -W \
        -o "-p ${PORT} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${SCRATCH_DIR}/run" \
        start >&2 || log "pg_ctl reported a failure; waiting in case the server comes up anyway"
}

# libpq-fe.h is needed to compile the crates that link libpq, whether or not this
# script has to start a server.
if [[ ! -f /usr/include/postgresql/libpq-fe.h ]]; then
    apt_install libpq-dev
fi

if is_ready; then
    log "PostgreSQL already answers on 127.0.0.1:${PORT}"
else
    if ! server_installed; then
        apt_install postgresql libpq-dev
    fi
    if cluster="$(debian_cluster_on_port)"; then
        # shellcheck disable=SC2086 # the four fields are meant to split
        start_debian_cluster $cluster
    else
        start_scratch_cluster
    fi
    wait_until_ready
    log "PostgreSQL answers on 127.0.0.1:${PORT}"
fi

if ! PSQL="$(pg_tool psql)"; then
    apt_install postgresql-client
    PSQL="$(pg_tool psql)" || die "psql is still missing after installing postgresql-client"
fi

# -X ignores ~/.psqlrc and -w never prompts, because CI has no stdin to answer with.
PSQL_ARGS=(-X -w -q -v ON_ERROR_STOP=1 -p "$PORT")

# Trust over TCP is the normal case. A stock Debian cluster only trusts the postgres
# account over its unix socket (peer auth), so root falls back to that.
superuser_psql() {
    if [[ "${SUPERUSER_VIA_SOCKET:-0}" -eq 1 ]]; then
        as_postgres "$PSQL" "${PSQL_ARGS[@]}" -h "$SOCKET_DIR" -U postgres -d postgres "$@"
    else
        "$PSQL" "${PSQL_ARGS[@]}" -h 127.0.0.1 -U postgres -d postgres "$@"
    fi
}

if ! superuser_psql -c 'SELECT 1' >/dev/null 2>&1; then
    if is_root; then
        for dir in "${SOCKET_DIRS[@]}"; do
            if [[ -S "$dir/.s.PGSQL.${PORT}" ]] &&
                SOCKET_DIR="$dir" SUPERUSER_VIA_SOCKET=1 superuser_psql -c 'SELECT 1' >/dev/null 2>&1; then
                SOCKET_DIR="$dir"
                SUPERUSER_VIA_SOCKET=1
                break
            fi
        done
    fi
    if [[ "${SUPERUSER_VIA_SOCKET:-0}" -ne 1 ]]; then
        superuser_psql -c 'SELECT 1' >/dev/null || true
        die "cannot connect as the postgres superuser on 127.0.0.1:${PORT} (see the error above)"
    fi
fi

superuser_psql >&2 <<'SQL'
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'coffer_test') THEN
        CREATE ROLE coffer_test LOGIN CREATEDB;
    END IF;
END
$$;
-- A role left behind by an older setup may lack the attributes the tests rely on.
ALTER ROLE coffer_test LOGIN CREATEDB;
SELECT 'CREATE DATABASE coffer_test OWNER coffer_test'
WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_database WHERE datname = 'coffer_test')
\gexec
ALTER DATABASE coffer_test OWNER TO coffer_test;
SQL

role_can_connect() {
    "$PSQL" "${PSQL_ARGS[@]}" -h 127.0.0.1 -U "$ROLE" -d "$DATABASE" -c 'SELECT 1' >/dev/null 2>&1
}

# Stock Debian clusters ask for a password on TCP. The tests connect without one, so
# root adds a trust rule scoped to the test role on loopback rather than loosening
# anything else.
if ! role_can_connect; then
    hba_file="$(superuser_psql -At -c 'SHOW hba_file')"
    if ! is_root || [[ ! -w "$hba_file" ]]; then
        die "role ${ROLE} cannot log in without a password on 127.0.0.1:${PORT}; add
    host all ${ROLE} 127.0.0.1/32 trust
at the top of ${hba_file} and reload PostgreSQL"
    fi
    marker="# Coffer test suite: passwordless loopback access for ${ROLE}"
    if ! grep -qF "$marker" "$hba_file"; then
        log "adding a trust rule for ${ROLE} to ${hba_file}"
        # pg_hba.conf is first-match, so the rule must precede the stock host lines.
        # Rewriting in place keeps the file's owner and mode.
        hba_new="$(mktemp)"
        {
            printf '%s\nhost all %s 127.0.0.1/32 trust\n' "$marker" "$ROLE"
            cat "$hba_file"
        } >"$hba_new"
        cat "$hba_new" >"$hba_file"
        rm -f "$hba_new"
    fi
    superuser_psql -c 'SELECT pg_reload_conf()' >/dev/null
    # The postmaster applies a reload asynchronously.
    for _ in 1 2 3 4 5; do
        role_can_connect && break
        sleep 1
    done
    role_can_connect || die "role ${ROLE} still cannot log in on 127.0.0.1:${PORT}"
fi

printf 'postgres://%s@127.0.0.1:%s/%s\n' "$ROLE" "$PORT" "$DATABASE"
