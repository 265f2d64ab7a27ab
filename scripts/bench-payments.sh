#!/usr/bin/env bash
# Benchmarks payments on PostgreSQL (docs/benchmarks.md): card payments and reads per
# second beside pgbench's TPC-B rate on the same server, then a search with an aggregation
# over 1,000,000 payments beside the same query written by hand in SQL.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# shellcheck source=scripts/bench-pg-services.sh
source scripts/bench-pg-services.sh

echo "== pgbench (TPC-B, scale 10, 8 clients, 10 s) on the same server" >&2
pgbench -q -i -s 10 "${pg_base%/*}/coffer_bench_pgbench" >/dev/null 2>&1
pgbench -c 8 -j 2 -T 10 "${pg_base%/*}/coffer_bench_pgbench" 2>/dev/null | grep -E "^tps" >&2

echo "== coffer bench-payments" >&2
"$client/coffer" bench-payments --credentials "$state/credentials.json" --identity-url http://127.0.0.1:18191 \
    --server-pid "$payments_pid" "$@"

# The same reads from wrk, which leaves more of the two cores to the server (both figures
# go to docs/benchmarks.md).
echo "== GET /payments/{uuid} from wrk (2 threads, 32 connections as bench-payments has clients, 10 s)" >&2
# shellcheck source=scripts/wrk.sh
source scripts/wrk.sh
psql -qtA "$payments_db" -c "SELECT '/payments/' || uuid FROM payments ORDER BY created DESC LIMIT ${READ_PAYMENTS:-256}" >"$state/paths"
wrk_lua "$state/reads.lua"
token="$(wrk_token "$state/credentials.json" http://127.0.0.1:18191/oauth2/token)"
WRK_PATHS="$state/paths" wrk -t2 -c32 -d10s --latency --timeout "$WRK_TIMEOUT" -H "Authorization: Bearer $token" \
    -s "$state/reads.lua" http://127.0.0.1:18192 | tee "$state/wrk.out" >&2
if wrk_failed "$state/wrk.out"; then echo "wrk: some reads were not answered 200" >&2; exit 1; fi
echo "{\"wrk_reads\": $(wrk_summary "$state/wrk.out")}"

echo "== 1,000,000 payments for the search" >&2
psql -q "$payments_db" >&2 <<SQL
INSERT INTO payments (uuid, organisation_uuid, account_uuid, created, updated, test_mode, payment_method, profile,
    payment_provider, status, amount_value, currency, refunded_amount, payment_information, custom_parameters)
SELECT gen_random_uuid()::text, '$organisation', '$account', 1767225600 + i, 1767225600 + i, true,
    (ARRAY['card', 'twint', 'paypal', 'sepa_dd'])[1 + i % 4], 'card_test', 'coffer_test',
    (ARRAY['succeeded', 'succeeded', 'failed', 'pending', 'succeeded'])[1 + i % 5], 100 + i % 10000, 'CHF', 0, '{}', '{}'
FROM generate_series(1, 1000000) AS i;
VACUUM ANALYZE payments;
SQL
wait_for_folded_counts
"$client/coffer" bench-payments --credentials "$state/credentials.json" --identity-url http://127.0.0.1:18191 --phases search "$@"
echo "== the same search by hand" >&2
psql -qtA "$payments_db" >&2 <<SQL
\timing on
SELECT count(*) FROM payments WHERE account_uuid = '$account' AND status = 'succeeded';
SELECT payment_method, count(*) FROM payments WHERE account_uuid = '$account' AND status = 'succeeded' GROUP BY payment_method ORDER BY 2 DESC LIMIT 10;
SELECT uuid FROM payments WHERE account_uuid = '$account' AND status = 'succeeded' ORDER BY created DESC, uuid DESC LIMIT 10;
SQL
