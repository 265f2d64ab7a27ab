#!/usr/bin/env bash
# Benchmarks payments on PostgreSQL (docs/benchmarks.md): card payments and reads per
# second beside pgbench's TPC-B rate on the same server, then a search with an aggregation
# over 1,000,000 payments beside the same query written by hand in SQL.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

pg_base="$(scripts/ensure-postgres.sh)"
brokers="$(scripts/kafka.sh)"
cargo build --release -p coffer -p coffer-identity -p coffer-payments >&2
bin="${CARGO_TARGET_DIR:-target}/release"
state="$(mktemp -d /tmp/coffer-bench-payments.XXXXXX)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$state"
}
trap cleanup EXIT

for db in coffer_bench_identity coffer_bench_payments coffer_bench_pgbench; do
    psql -q "$pg_base" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" >&2
done
# A prefix of its own, so no earlier run's (or test's) topics and consumer groups take part.
prefix="bench$(date +%s)"
export COFFER_EVENTS__PREFIX="$prefix"
identity_db="${pg_base%/*}/coffer_bench_identity"
payments_db="${pg_base%/*}/coffer_bench_payments"

# A fixed master key: the databases are made afresh for every run.
master_keys=bench:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
COFFER_DATABASE_URL="$identity_db" COFFER_KAFKA__BROKERS="$brokers" COFFER_HTTP__LISTEN=127.0.0.1:18191 \
    COFFER_SECRETS__KEYS="$master_keys" COFFER_SSO__ISSUER=http://127.0.0.1:18191 COFFER_LOG__LEVEL=warn "$bin/coffer-identity" serve &
pids+=("$!")
COFFER_DATABASE_URL="$payments_db" COFFER_KAFKA__BROKERS="$brokers" COFFER_HTTP__LISTEN=127.0.0.1:18192 \
    COFFER_AUTH__JWKS_URL=http://127.0.0.1:18191/.well-known/jwks.json \
    COFFER_PAYMENTS__PUBLIC_BASE_URL=http://127.0.0.1:18192 \
    COFFER_PAYMENTS__FINGERPRINT_KEY=0123456789abcdef0123456789abcdef-bench \
    COFFER_SECRETS__KEYS="$master_keys" COFFER_LOG__LEVEL=warn "$bin/coffer-payments" serve &
pids+=("$!")
for port in 18191 18192; do
    for _ in $(seq 1 150); do curl -sf "http://127.0.0.1:$port/health/ready" >/dev/null && break; sleep 0.2; done
done

"$bin/coffer" admin --data-dir "$state" --identity-database-url "$identity_db" demo --base-url http://127.0.0.1:18192 >/dev/null
account="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["account_uuids"][0])' "$state/credentials.json")"
organisation="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["organisation_uuid"])' "$state/credentials.json")"
# Payments learns of the account from identity's events.
for _ in $(seq 1 150); do
    n="$(psql -qtA "$payments_db" -c "SELECT count(*) FROM payment_method_profiles WHERE account_uuid = '$account'")"
    [[ "$n" == 4 ]] && break
    sleep 0.2
done

echo "== pgbench (TPC-B, scale 10, 8 clients, 10 s) on the same server" >&2
pgbench -q -i -s 10 "${pg_base%/*}/coffer_bench_pgbench" >/dev/null 2>&1
pgbench -c 8 -j 2 -T 10 "${pg_base%/*}/coffer_bench_pgbench" 2>/dev/null | grep -E "^tps" >&2

echo "== coffer bench-payments" >&2
"$bin/coffer" bench-payments --credentials "$state/credentials.json" --identity-url http://127.0.0.1:18191 "$@"

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
# The service folds the counts the trigger appended (docs/payments.md, "Search") within a
# second or two of the load; searches are right before that too, only slower.
for _ in $(seq 1 300); do
    n="$(psql -qtA "$payments_db" -c "SELECT count(*) FROM payment_count_changes")"
    [[ "$n" == 0 ]] && break
    sleep 0.2
done
psql -q "$payments_db" -c "VACUUM ANALYZE payment_counts, payment_count_changes" >&2
"$bin/coffer" bench-payments --credentials "$state/credentials.json" --identity-url http://127.0.0.1:18191 --search-only "$@"
echo "== the same search by hand" >&2
psql -qtA "$payments_db" >&2 <<SQL
\timing on
SELECT count(*) FROM payments WHERE account_uuid = '$account' AND status = 'succeeded';
SELECT payment_method, count(*) FROM payments WHERE account_uuid = '$account' AND status = 'succeeded' GROUP BY payment_method ORDER BY 2 DESC LIMIT 10;
SELECT uuid FROM payments WHERE account_uuid = '$account' AND status = 'succeeded' ORDER BY created DESC, uuid DESC LIMIT 10;
SQL
