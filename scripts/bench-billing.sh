#!/usr/bin/env bash
# Benchmarks billing on PostgreSQL (docs/benchmarks.md): 100,000 active subscriptions fall
# due at once; measures the time until every invoice and charge attempt exists, and until
# every charge has a result (payments charging through Kafka and answering).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

count="${1:-100000}"
pg_base="$(scripts/ensure-postgres.sh)"
# shellcheck source=scripts/bench-autovacuum.sh
source scripts/bench-autovacuum.sh
brokers="$(scripts/kafka.sh)"
cargo build --release -p coffer -p coffer-identity -p coffer-payments -p coffer-billing >&2
bin="${CARGO_TARGET_DIR:-target}/release"
state="$(mktemp -d /tmp/coffer-bench-billing.XXXXXX)"
pids=()
cleanup() {
    autovacuum_restore
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$state"
}
trap cleanup EXIT
autovacuum_on

# Fresh databases and a prefix of its own, so no earlier run's topics or groups take part.
prefix="bench$(date +%s)"
for db in coffer_bench_identity coffer_bench_payments coffer_bench_billing; do
    psql -q "$pg_base" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" >&2
done
url() { echo "${pg_base%/*}/$1"; }
common=(COFFER_KAFKA__BROKERS="$brokers" COFFER_EVENTS__PREFIX="$prefix" COFFER_LOG__LEVEL=warn
    COFFER_AUTH__JWKS_URL=http://127.0.0.1:18191/.well-known/jwks.json
    COFFER_SECRETS__KEYS=bench:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=)
env "${common[@]}" COFFER_DATABASE_URL="$(url coffer_bench_identity)" COFFER_HTTP__LISTEN=127.0.0.1:18191 COFFER_SSO__ISSUER=http://127.0.0.1:18191 \
    "$bin/coffer-identity" serve &
pids+=("$!")
env "${common[@]}" COFFER_DATABASE_URL="$(url coffer_bench_payments)" COFFER_HTTP__LISTEN=127.0.0.1:18192 \
    COFFER_PAYMENTS__PUBLIC_BASE_URL=http://127.0.0.1:18192 \
    COFFER_PAYMENTS__FINGERPRINT_KEY=0123456789abcdef0123456789abcdef-bench \
    "$bin/coffer-payments" serve &
pids+=("$!")
env "${common[@]}" COFFER_DATABASE_URL="$(url coffer_bench_billing)" COFFER_HTTP__LISTEN=127.0.0.1:18193 \
    COFFER_BILLING__SCHEDULER_INTERVAL_MS=1000 "$bin/coffer-billing" serve &
pids+=("$!")
for port in 18191 18192 18193; do
    for _ in $(seq 1 150); do curl -sf "http://127.0.0.1:$port/health/ready" >/dev/null && break; sleep 0.2; done
done

COFFER_EVENTS__PREFIX="$prefix" "$bin/coffer" admin --data-dir "$state" \
    --identity-database-url "$(url coffer_bench_identity)" demo --base-url http://127.0.0.1:18192 >/dev/null
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$state/credentials.json" "$1"; }
organisation="$(json organisation_uuid)"
account="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["account_uuids"][0])' "$state/credentials.json")"
token="$(curl -s -X POST http://127.0.0.1:18191/oauth2/token -d grant_type=client_credentials \
    -d client_id="$(json client_id)" -d client_secret="$(json client_secret)" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')"
for _ in $(seq 1 150); do
    n="$(psql -qtA "$(url coffer_bench_payments)" -c "SELECT count(*) FROM payment_method_profiles WHERE account_uuid = '$account'")"
    [[ "$n" == 4 ]] && break
    sleep 0.2
done
source_uuid="$(curl -s -X POST http://127.0.0.1:18192/payment-sources -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' -d "{\"account_uuid\": \"$account\", \"payment_method\": \"card\",
    \"amount\": {\"value\": \"100\", \"currency\": \"CHF\"}, \"payment_information\": {\"number\": \"4242424242424242\",
    \"expiry_month\": 12, \"expiry_year\": 2030, \"cvv\": \"123\"}}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["uuid"])')"
for _ in $(seq 1 150); do
    n="$(psql -qtA "$(url coffer_bench_billing)" -c "SELECT count(*) FROM payment_sources")"
    [[ "$n" == 1 ]] && break
    sleep 0.2
done

echo "== $count active subscriptions, all due in 20 seconds" >&2
due="$(( $(date +%s) + 20 ))"
psql -q "$(url coffer_bench_billing)" >&2 <<SQL
INSERT INTO subscriptions (uuid, organisation_uuid, account_uuid, supporter_uuid, plan_uuid, payment_source_uuid,
    payment_provider, payment_method, test_mode, currency, amount, timezone, recurring_interval, anchor_date,
    status, next_due_date, planned_since, consecutive_failed_invoices, custom_parameters, service_parameters,
    created, updated)
SELECT gen_random_uuid()::text, '$organisation', '$account', NULL, '00000000-0000-4000-8000-000000000001',
    '$source_uuid', 'coffer_test', 'card', true, 'CHF', 1000 + i % 5000, 'UTC', 'monthly',
    to_char(to_timestamp($due) AT TIME ZONE 'UTC', 'YYYY-MM-DD'), 'active', $due, $due, 0, '{}', '{}', $due, $due
FROM generate_series(1, $count) AS i;
VACUUM ANALYZE subscriptions;
SQL
python3 - "$(url coffer_bench_billing)" "$count" "$due" <<'PY'
import subprocess, sys, time
db, count, due = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def q(sql):
    return int(subprocess.run(["psql", "-qtA", db, "-c", sql], capture_output=True, text=True, check=True).stdout.strip())
while time.time() < due:
    time.sleep(0.05)
start = time.time()
made = None
while True:
    # Counted only until they are all there: counting costs the database it measures.
    if made is None and q("SELECT count(*) FROM invoices") >= count and q("SELECT count(*) FROM charge_attempts") >= count:
        made = time.time() - start
        print(f"every invoice and charge attempt exists after {made:.1f} s", file=sys.stderr)
    # Whether any is still pending, not how many: the answer stops at the first one found.
    if made is not None and q("SELECT count(*) FROM (SELECT 1 FROM charge_attempts WHERE status = 'pending' LIMIT 1) AS p") == 0:
        paid = q("SELECT count(*) FROM invoices WHERE status = 'paid'")
        print(f"every charge has a result after {time.time() - start:.1f} s ({paid} invoices paid)", file=sys.stderr)
        break
    if time.time() - start > 1800:
        sys.exit("gave up after 30 minutes")
    time.sleep(1.0)
PY
