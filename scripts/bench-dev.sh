#!/usr/bin/env bash
# POST /payments on the embedded default (`coffer dev`: SQLite files, the in-process bus)
# from 4 and then 16 clients, as docs/benchmarks.md records: throughput, p50 and p99.
# Usage: scripts/bench-dev.sh [seconds per run]   (BENCH_PORT to move the port)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds="${1:-10}"
port="${BENCH_PORT:-18095}"
data="$(mktemp -d /tmp/coffer-bench-dev.XXXXXX)"
server_pid=""
cleanup() {
    [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
    rm -rf "$data"
}
trap cleanup EXIT

cargo build --release -p coffer >&2
bin=target/release
[[ -n "${CARGO_TARGET_DIR:-}" ]] && bin="$CARGO_TARGET_DIR/release"

COFFER_LOG__LEVEL=warn "$bin/coffer" dev --listen "127.0.0.1:$port" --data-dir "$data" >"$data.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 200); do
    curl -fsS "http://127.0.0.1:$port/health/ready" >/dev/null 2>&1 && break
    sleep 0.1
done
curl -fsS "http://127.0.0.1:$port/health/ready" >/dev/null

for clients in 4 16; do
    "$bin/coffer" bench-payments --credentials "$data/credentials.json" \
        --concurrency "$clients" --duration "$seconds" --searches 1 |
        jq -c '{clients: .concurrency, card_payments: .card_payments}'
done
