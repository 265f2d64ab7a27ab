#!/usr/bin/env bash
# The embedded default (`coffer dev`: SQLite files, the in-process bus) under load, as
# docs/benchmarks.md records it: POST /payments from 4 and then 16 clients, GET
# /payments/{uuid} from 4 and 16, then reads and writes at once (16 clients each), with the
# server's anonymous memory and threads at rest and at their peak.
# Usage: scripts/bench-dev.sh [seconds per run]
#   BENCH_PORT   the port (18095)
#   BENCH_CPUS   pin the server to these cores with taskset (e.g. 0, or 0-1)
#   BENCH_WORKERS  force the server's thread counts, as a machine of that many cores would
#                  have them (--workers and TOKIO_WORKER_THREADS)
#   BENCH_LOG_LEVEL  the server's log level (info, its default)
#   BENCH_BIN    binaries built elsewhere (an earlier commit's, to compare), used as they are
#   BENCH_CLIENT_BIN  where the load generator (`coffer bench-payments`) comes from, if not
#                  from BENCH_BIN: the same client against two versions of the server
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds="${1:-10}"
port="${BENCH_PORT:-18095}"
data="$(mktemp -d /tmp/coffer-bench-dev.XXXXXX)"
server_pid=""
cleanup() {
    [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
    rm -rf "$data" "$data.log"
}
trap cleanup EXIT

if [[ -n "${BENCH_BIN:-}" ]]; then bin="$BENCH_BIN"; else
    cargo build --release -p coffer >&2
    bin="${CARGO_TARGET_DIR:-target}/release"
fi
client="${BENCH_CLIENT_BIN:-$bin}"

launch=()
[[ -n "${BENCH_CPUS:-}" ]] && launch=(taskset -c "$BENCH_CPUS")
workers=()
if [[ -n "${BENCH_WORKERS:-}" ]]; then
    workers=(--workers "$BENCH_WORKERS")
    export TOKIO_WORKER_THREADS="$BENCH_WORKERS"
fi
COFFER_LOG__LEVEL="${BENCH_LOG_LEVEL:-info}" "${launch[@]}" "$bin/coffer" dev --listen "127.0.0.1:$port" --data-dir "$data" \
    "${workers[@]}" >"$data.log" 2>&1 &
server_pid=$!
unset TOKIO_WORKER_THREADS
for _ in $(seq 1 200); do
    curl -fsS "http://127.0.0.1:$port/health/ready" >/dev/null 2>&1 && break
    sleep 0.1
done
curl -fsS "http://127.0.0.1:$port/health/ready" >/dev/null

run() { # $1: clients, $2: phases
    "$client/coffer" bench-payments --credentials "$data/credentials.json" --server-pid "$server_pid" \
        --concurrency "$1" --duration "$seconds" --phases "$2" |
        jq -c '{clients: .concurrency} + (with_entries(select(.value != null and .key != "concurrency")))'
}
run 4 card
run 16 card
run 4 reads
run 16 reads
run 16 mixed
echo "{\"log_bytes\": $(stat -c %s "$data.log")}"
