#!/usr/bin/env bash
# Makes sure an S3-compatible object store answers on 127.0.0.1:${S3_PORT:-19000} with a test
# bucket in it, and prints how to reach it on stdout as one URL; all progress goes to stderr
# so callers can capture it with $(...). `make test` hands the URL to the tests as
# COFFER_TEST_S3:
#
#   http://ACCESS_KEY:SECRET_KEY@127.0.0.1:19000/BUCKET?region=REGION
#
# The scheme, host and port are the endpoint (path-style addressing), the user and password
# the credentials, the path the bucket and the query the SigV4 signing region.
#
#   scripts/s3.sh         start the store if nothing answers yet, print the URL
#   scripts/s3.sh stop    stop the store this script started on that port
#
# The store is s3s-fs, built once from crates.io with `cargo install`: it keeps objects as
# files under a directory (one directory per bucket), checks SigV4 signatures and enforces
# browser-POST policies, and needs no JVM or container.
set -euo pipefail

# shellcheck source=scripts/daemon.sh
source "$(dirname "${BASH_SOURCE[0]}")/daemon.sh"

PORT="${S3_PORT:-19000}"
TOOLS_DIR="${COFFER_TOOLS_DIR:-$HOME/.cache/coffer-tools}"
PACKAGE=s3s-fs
PACKAGE_VERSION=0.14.1
INSTALL_ROOT="${TOOLS_DIR}/s3s-fs"
BINARY="${INSTALL_ROOT}/bin/s3s-fs"
DATA_DIR="${TOOLS_DIR}/s3-${PORT}"
# Throwaway credentials for a store that listens on loopback only and holds test files.
ACCESS_KEY=coffer-test
SECRET_KEY=coffer-test-secret
BUCKET=coffer-test
# s3s-fs signs and checks with whatever region the client names; this is the one tests use.
REGION=us-east-1
LOG_FILE="${TOOLS_DIR}/s3s-fs-${PORT}.log"
PID_FILE="${TOOLS_DIR}/s3s-fs-${PORT}.pid"
LOCK_FILE="${TOOLS_DIR}/s3s-fs-${PORT}.lock"
ADDRESS="127.0.0.1:${PORT}"
URL="http://${ACCESS_KEY}:${SECRET_KEY}@${ADDRESS}/${BUCKET}?region=${REGION}"

log() { daemon_log s3 "$@"; }
die() { daemon_die s3 "$@"; }
# The lock also keeps two runs from building s3s-fs at once; the first run on a machine
# builds it, which takes minutes.
take_lock() { daemon_take_lock s3 "$LOCK_FILE" 1200; }

installed_version_ok() {
    [[ -x "$BINARY" ]] && [[ "$("$BINARY" --version 2>/dev/null)" == "${PACKAGE} ${PACKAGE_VERSION}" ]]
}

ensure_binary() {
    installed_version_ok && return 0
    command -v cargo >/dev/null 2>&1 || die "cargo not found; it is needed to build ${PACKAGE} ${PACKAGE_VERSION}"
    log "building ${PACKAGE} ${PACKAGE_VERSION} into ${INSTALL_ROOT} (once per machine; takes a few minutes)"
    # Without CARGO_TARGET_DIR cargo install builds in a temporary directory and removes it,
    # so the tool's build never lands in (or invalidates) the workspace's target directory.
    # --force replaces a binary of another version left by an older pin.
    env -u CARGO_TARGET_DIR -u CARGO_BUILD_TARGET_DIR \
        cargo install "$PACKAGE" --version "$PACKAGE_VERSION" --features binary --locked \
        --force --root "$INSTALL_ROOT" >&2 ||
        die "cargo install ${PACKAGE} ${PACKAGE_VERSION} failed"
    installed_version_ok || die "${BINARY} is not ${PACKAGE} ${PACKAGE_VERSION} after cargo install"
}

start_store() {
    log "starting $("$BINARY" --version) on ${ADDRESS}, data in ${DATA_DIR} (log: ${LOG_FILE})"
    daemon_start s3 s3s-fs "$PID_FILE" "$LOG_FILE" "$ADDRESS" \
        "$BINARY" --host 127.0.0.1 --port "$PORT" \
        --access-key "$ACCESS_KEY" --secret-key "$SECRET_KEY" "$DATA_DIR"
}

daemon_check_port s3 S3_PORT "$PORT"

case "${1:-start}" in
start) ;;
stop)
    take_lock
    daemon_stop s3 s3s-fs "object store" "$PID_FILE" s3s-fs "$ADDRESS"
    exit 0
    ;;
-h | --help) daemon_usage 0 ;;
*) daemon_usage ;;
esac

# s3s-fs serves each directory under its root as a bucket, so creating the bucket is a
# mkdir; doing it on every run restores a bucket a test (or a person) removed.
if daemon_port_open "$ADDRESS"; then
    mkdir -p "${DATA_DIR}/${BUCKET}"
    log "something already answers on ${ADDRESS}; assuming it is s3s-fs"
    printf '%s\n' "$URL"
    exit 0
fi

take_lock
mkdir -p "${DATA_DIR}/${BUCKET}"
# Another invocation may have started the store while this one waited for the lock.
if daemon_port_open "$ADDRESS"; then
    log "s3s-fs started by a concurrent run answers on ${ADDRESS}"
else
    ensure_binary
    start_store
fi
printf '%s\n' "$URL"
