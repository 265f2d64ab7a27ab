#!/usr/bin/env bash
# Times every search shape (`coffer bench-search`: kept counts, a monthly histogram in
# Europe/Zurich, stats on the amount, a match and a term aggregation on a custom parameter,
# 30 days sorted by amount), then reads, over <payments> payments of one account seeded in
# bulk (COPY on PostgreSQL, one INSERT ... SELECT on SQLite), never through the API. The
# payments are spread evenly over 2024 and 2025; docs/benchmarks.md records the figures.
# Usage: scripts/bench-search.sh <payments> <postgres|sqlite> [searches per shape]
#   KILL_AFTER  (sqlite) seconds after starting the server on the seeded payments to kill it
#               with SIGKILL, in the middle of folding them, before starting it again: the
#               digests must equal those of a run without it. Counted from the start, not
#               from ready; the changes it prints as not folded yet show whether the kill
#               came in the middle (about 1.1-1.4 s for 300,000 payments here)
#   BENCH_BIN   binaries built elsewhere (an earlier commit's, to compare), used as they are
#   BENCH_CLIENT_BIN  where the load generator (`coffer bench-...`) comes from, if not from
#               BENCH_BIN: the same client against two versions of the server
#   UPGRADE_BIN after the run, serve the same seeded payments with these binaries (they
#               migrate them, as an upgrade would) and run again: two versions compared on
#               one seed. On SQLite the second version runs twice: as upgraded, and after
#               ANALYZE (which a fresh seed has, and an upgrade does not run)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

payments="${1:?how many payments}"
backend="${2:?postgres or sqlite}"
searches="${3:-20}"
[[ "$payments" =~ ^[0-9]+$ && "$payments" -ge 1 && "$payments" -le 20000000 ]] || { echo "payments: 1 to 20,000,000" >&2; exit 2; }
[[ "$searches" =~ ^[0-9]+$ && "$searches" -ge 1 && "$searches" -le 1000 ]] || { echo "searches per shape: 1 to 1,000" >&2; exit 2; }
start=1704067200 # 2024-01-01T00:00:00Z
end=1767225600   # 2026-01-01T00:00:00Z, the end of the 30-day range searched

# About 1.5 KiB a payment with its indexes on either database; ask for twice that.
need_kib=$((payments * 3))
avail_kib="$(df --output=avail -k / | tail -1)"
if ((avail_kib < need_kib)); then
    echo "bench-search: $payments payments need about $((need_kib / 1048576)) GiB free; / has $((avail_kib / 1048576)) GiB" >&2
    exit 1
fi

# Every seeded payment, the same on both databases but for its uuid: methods, statuses,
# amounts and campaigns (three in four payments name one of 13) cycle with the row number.
columns="uuid, organisation_uuid, account_uuid, created, updated, test_mode, payment_method, profile,
    payment_provider, status, amount_value, currency, refunded_amount, payment_information, custom_parameters"
row() { # $1: the row number's name, $2: the uuid expression, $3: true's spelling
    cat <<SQL
$2, '$organisation', '$account', $start + ($1 * $((end - start))) / $payments, $start + ($1 * $((end - start))) / $payments, $3,
    CASE $1 % 4 WHEN 0 THEN 'card' WHEN 1 THEN 'twint' WHEN 2 THEN 'paypal' ELSE 'sepa_dd' END,
    'card_test', 'coffer_test',
    CASE $1 % 5 WHEN 2 THEN 'failed' WHEN 3 THEN 'pending' ELSE 'succeeded' END,
    100 + ($1 * 7919) % 100000, 'CHF', 0, '{}',
    CASE WHEN $1 % 4 = 0 THEN '{}' ELSE '{"campaign":"spring-' || ($1 % 13) || '"}' END
SQL
}

# Every shape, then GET /payments/{uuid} of 256 of the seeded payments from wrk (2
# threads, 32 connections, 8 s): read without writing any, so that a second version (or
# run) searches the same payments. $1: the API's address, $2: its token endpoint.
# shellcheck source=scripts/wrk.sh
source scripts/wrk.sh
bench() {
    echo "== searches served by $bin" >&2
    "$client/coffer" bench-search --credentials "$credentials" --now "$end" --searches "$searches" "${@:3}"
    echo "== reads among $payments payments" >&2
    # The lowest uuids: random ones, so spread over the seeded payments.
    read_paths >"$credentials.paths"
    wrk_lua "$credentials.lua"
    local token
    token="$(wrk_token "$credentials" "$2")"
    WRK_PATHS="$credentials.paths" wrk -t2 -c32 -d8s --latency --timeout "$WRK_TIMEOUT" -H "Authorization: Bearer $token" \
        -s "$credentials.lua" "$1" >"$credentials.wrk"
    if wrk_failed "$credentials.wrk"; then echo "wrk: some reads were not answered 200" >&2; cat "$credentials.wrk" >&2; exit 1; fi
    echo "{\"payments\": $payments, \"wrk_reads\": $(wrk_summary "$credentials.wrk")}"
}

# UPGRADE_BIN: the seed served again by that version, which migrates it first; each backend
# below defines halt, resume, folded, size and bench_here.
upgrade() {
    halt
    bin="$UPGRADE_BIN" client="${BENCH_CLIENT_BIN:-$UPGRADE_BIN}"
    echo "== upgrading: the same database served by $bin" >&2
    local upgraded
    upgraded=$(date +%s)
    resume
    folded
    echo "== migrated and folded in $(($(date +%s) - upgraded)) s; $(size)" >&2
    bench_here
}

case "$backend" in
postgres)
    # shellcheck source=scripts/bench-pg-services.sh
    source scripts/bench-pg-services.sh
    credentials="$state/credentials.json"
    echo "== seeding $payments payments with COPY" >&2
    seeded=$(date +%s)
    psql -q "$payments_db" -c "COPY (SELECT $(row i 'gen_random_uuid()::text' true) FROM generate_series(1::bigint, $payments) AS i) TO STDOUT" |
        psql -q "$payments_db" -c "COPY payments ($columns) FROM STDIN"
    psql -q "$payments_db" -c "VACUUM ANALYZE payments" >&2
    wait_for_folded_counts
    size() { psql -qtA "$payments_db" -c "SELECT pg_size_pretty(pg_database_size(current_database()))"; }
    echo "== seeded in $(($(date +%s) - seeded)) s; $(size)" >&2
    read_paths() { psql -qtA "$payments_db" -c "SELECT '/payments/' || uuid FROM payments ORDER BY uuid LIMIT 256"; }
    bench_here() { bench http://127.0.0.1:18192 http://127.0.0.1:18191/oauth2/token --identity-url http://127.0.0.1:18191; }
    halt() { stop_services; }
    resume() { start_services; }
    folded() { wait_for_folded_counts; }
    bench_here
    if [[ -n "${UPGRADE_BIN:-}" ]]; then upgrade; fi
    ;;
sqlite)
    # BENCH_BIN: binaries built elsewhere (an earlier commit's, to compare), used as they are.
    if [[ -n "${BENCH_BIN:-}" ]]; then bin="$BENCH_BIN"; else
        cargo build --release -p coffer >&2
        bin="${CARGO_TARGET_DIR:-target}/release"
    fi
    client="${BENCH_CLIENT_BIN:-$bin}"
    data="$(mktemp -d /tmp/coffer-bench-search.XXXXXX)"
    port="${BENCH_PORT:-18096}"
    server_pid=""
    stop() { [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null; server_pid=""; }
    trap 'stop; rm -rf "$data"' EXIT
    serve() {
        COFFER_LOG__LEVEL=warn "$bin/coffer" dev --listen "127.0.0.1:$port" --data-dir "$data" >>"$data/log" 2>&1 &
        server_pid=$!
        # As long as it runs: an upgrade migrates every seeded payment before it is ready.
        until curl -fsS "http://127.0.0.1:$port/health/ready" >/dev/null 2>&1; do
            if ! kill -0 "$server_pid" 2>/dev/null; then
                echo "coffer dev stopped before it was ready; its log:" >&2
                cat "$data/log" >&2
                exit 1
            fi
            sleep 0.1
        done
    }
    # Until what the triggers appended is folded (counts, and roll-ups where the code has
    # them); searches are right before that too, only slower.
    wait_for_folded() {
        local changes
        changes="$(sqlite3 "$data/payments.db" "SELECT group_concat('EXISTS (SELECT 1 FROM ' || name || ')', ' OR ')
            FROM sqlite_master WHERE type = 'table' AND name LIKE 'payment\_%changes' ESCAPE '\'")"
        [[ -n "$changes" ]] || return 0
        for _ in $(seq 1 9000); do
            [[ "$(sqlite3 "$data/payments.db" "SELECT $changes")" == 0 ]] && return 0
            sleep 0.2
        done
        echo "bench-search: the changes were not folded within 30 minutes" >&2
        exit 1
    }
    serve
    credentials="$data/credentials.json"
    account="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["account_uuids"][0])' "$credentials")"
    organisation="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["organisation_uuid"])' "$credentials")"
    # Seeded with the server stopped: one transaction holding the write lock for minutes
    # would only make the server's own writers wait.
    stop
    echo "== seeding $payments payments with INSERT ... SELECT" >&2
    seeded=$(date +%s)
    uuid="lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-a' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))"
    sqlite3 "$data/payments.db" >/dev/null <<SQL
PRAGMA journal_mode = WAL;
INSERT INTO payments ($columns) SELECT $(row value "$uuid" 1) FROM generate_series(1, $payments);
ANALYZE;
PRAGMA wal_checkpoint(TRUNCATE);
SQL
    if [[ -n "${KILL_AFTER:-}" ]]; then
        COFFER_LOG__LEVEL=warn "$bin/coffer" dev --listen "127.0.0.1:$port" --data-dir "$data" >>"$data/log" 2>&1 &
        server_pid=$!
        sleep "$KILL_AFTER"
        kill -9 "$server_pid" || true
        wait "$server_pid" 2>/dev/null || true
        server_pid=""
        echo "== killed with SIGKILL after $KILL_AFTER s; changes not folded yet: $(sqlite3 "$data/payments.db" "SELECT $(sqlite3 "$data/payments.db" "SELECT group_concat('(SELECT count(*) FROM ' || name || ')', ' + ') FROM sqlite_master WHERE type = 'table' AND name LIKE 'payment\_%changes' ESCAPE '\'")")" >&2
    fi
    serve
    wait_for_folded
    size() { echo "$(du -ch "$data"/payments.db* | tail -1 | cut -f1) with its WAL"; }
    echo "== seeded in $(($(date +%s) - seeded)) s; $(size)" >&2
    read_paths() { sqlite3 "$data/payments.db" "SELECT '/payments/' || uuid FROM payments ORDER BY uuid LIMIT 256"; }
    bench_here() { bench "http://127.0.0.1:$port" "http://127.0.0.1:$port/oauth2/token"; }
    halt() { stop; }
    resume() { serve; }
    folded() { wait_for_folded; }
    bench_here
    if [[ -n "${UPGRADE_BIN:-}" ]]; then
        upgrade
        analysed=$(date +%s)
        sqlite3 "$data/payments.db" "PRAGMA busy_timeout = 600000; ANALYZE" >/dev/null
        echo "== after ANALYZE ($(($(date +%s) - analysed)) s)" >&2
        bench_here
    fi
    ;;
*)
    echo "backend: postgres or sqlite, not $backend" >&2
    exit 2
    ;;
esac
