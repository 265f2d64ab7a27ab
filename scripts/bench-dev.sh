#!/usr/bin/env bash
# The embedded default (`coffer dev`: SQLite files, the in-process bus) under load, as
# docs/benchmarks.md records it: POST /payments from 4 and then 16 clients, GET
# /payments/{uuid} from 4 and 16, then reads and writes at once (16 clients each), with the
# server's anonymous memory and threads at rest and at their peak. Last, reads as a client
# that does not fill the machine sees them: wrk at a steady pace, on the idle server and
# while 16 clients write.
# Usage: scripts/bench-dev.sh [seconds per run]
#   BENCH_PORT   the port (18095)
#   BENCH_CPUS   pin the server to these cores with taskset (e.g. 0, or 0-1)
#   BENCH_WORKERS  force the server's thread counts, as a machine of that many cores would
#                  have them (--workers and TOKIO_WORKER_THREADS)
#   BENCH_LOG_LEVEL  the server's log level (info, its default)
#   BENCH_BIN    binaries built elsewhere (an earlier commit's, to compare), used as they are
#   BENCH_CLIENT_BIN  where the load generator (`coffer bench-payments`) comes from, if not
#                  from BENCH_BIN: the same client against two versions of the server
#   PACE_MS      the paced reads' wait before each request on each of 16 connections (5)
#   WRITER_NICE  the nice value of the paced phase's writing client (0)
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

# The closed loops above measure reads that share the cores with a client trying to fill
# them; a read's wait behind writes shows best when reads come at a pace the server could
# keep up with alone. wrk's latencies count from each request's sending.
# shellcheck source=scripts/wrk.sh
source scripts/wrk.sh
python3 - "$data/payments.db" >"$data/paths" <<'PY'
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
for (uuid,) in db.execute("SELECT uuid FROM payments ORDER BY created DESC LIMIT 256"):
    print(f"/payments/{uuid}")
PY
wrk_lua "$data/reads.lua"
token="$(wrk_token "$data/credentials.json" "http://127.0.0.1:$port/oauth2/token")"
paced() { # $1: where to keep wrk's output
    WRK_PATHS="$data/paths" WRK_PACE_MS="${PACE_MS:-5}" wrk -t2 -c16 -d"${seconds}s" --latency \
        --timeout "$WRK_TIMEOUT" -H "Authorization: Bearer $token" -s "$data/reads.lua" \
        "http://127.0.0.1:$port" >"$1"
    if wrk_failed "$1"; then cat "$1" >&2; echo "wrk: some reads were not answered 200" >&2; exit 1; fi
    wrk_summary "$1"
}
# An idle server is one whose work after the writes above (events, deliveries, roll-ups)
# is done: its CPU time grows by less than 5 % of a core in a second, waited for up to a
# minute.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$server_pid/stat"; }
for _ in $(seq 1 60); do
    before="$(cpu_ticks)"
    sleep 1
    (($(cpu_ticks) - before < $(getconf CLK_TCK) / 20)) && break
done
idle="$(paced "$data/idle.out")"
nice -n "${WRITER_NICE:-0}" "$client/coffer" bench-payments --credentials "$data/credentials.json" --concurrency 16 \
    --duration "$((seconds + 2))" --phases card >"$data/writes.json" &
writer=$!
sleep 1
during="$(paced "$data/during.out")"
wait "$writer"
echo "{\"paced_reads\": {\"pace_ms\": ${PACE_MS:-5}, \"idle\": $idle, \"during_writes\": $during, \"card_payments\": $(jq -c .card_payments "$data/writes.json")}}"
echo "{\"log_bytes\": $(stat -c %s "$data.log")}"
