# Sourced by the PostgreSQL benchmarks (bench-payments.sh, bench-search.sh): fresh
# databases, release builds of identity and payments on them with tansu for events, and
# the demo organisation. Sets bin, client, state, pg_base, payments_db, payments_pid,
# account and organisation, and stops everything on exit.

pg_base="$(scripts/ensure-postgres.sh)"
brokers="$(scripts/kafka.sh)"
# BENCH_BIN: binaries built elsewhere (an earlier commit's, to compare), used as they are.
# BENCH_CLIENT_BIN: where the load generator (`coffer bench-...`) comes from, if not from
# there: the same client against two versions of the services.
if [[ -n "${BENCH_BIN:-}" ]]; then bin="$BENCH_BIN"; else
    cargo build --release -p coffer -p coffer-identity -p coffer-payments >&2
    bin="${CARGO_TARGET_DIR:-target}/release"
fi
client="${BENCH_CLIENT_BIN:-$bin}"
state="$(mktemp -d /tmp/coffer-bench-pg.XXXXXX)"
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
export COFFER_EVENTS__PREFIX="bench$(date +%s)"
identity_db="${pg_base%/*}/coffer_bench_identity"
payments_db="${pg_base%/*}/coffer_bench_payments"

# A fixed master key: the databases are made afresh for every run.
master_keys=bench:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
# Identity and payments from "$bin", waited for while they migrate (minutes when an upgrade
# migrates millions of payments); sets payments_pid. Again after stop_services, the same
# databases are served by whatever "$bin" is then (bench-search.sh's UPGRADE_BIN).
start_services() {
    COFFER_DATABASE_URL="$identity_db" COFFER_KAFKA__BROKERS="$brokers" COFFER_HTTP__LISTEN=127.0.0.1:18191 \
        COFFER_SECRETS__KEYS="$master_keys" COFFER_SSO__ISSUER=http://127.0.0.1:18191 COFFER_LOG__LEVEL=warn "$bin/coffer-identity" serve &
    identity_pid="$!"
    COFFER_DATABASE_URL="$payments_db" COFFER_KAFKA__BROKERS="$brokers" COFFER_HTTP__LISTEN=127.0.0.1:18192 \
        COFFER_AUTH__JWKS_URL=http://127.0.0.1:18191/.well-known/jwks.json \
        COFFER_PAYMENTS__PUBLIC_BASE_URL=http://127.0.0.1:18192 \
        COFFER_PAYMENTS__FINGERPRINT_KEY=0123456789abcdef0123456789abcdef-bench \
        COFFER_SECRETS__KEYS="$master_keys" COFFER_LOG__LEVEL=warn "$bin/coffer-payments" serve &
    payments_pid="$!"
    pids+=("$identity_pid" "$payments_pid")
    local port pid port_pid
    for port_pid in "18191:$identity_pid" "18192:$payments_pid"; do
        port="${port_pid%%:*}" pid="${port_pid#*:}"
        until curl -sf "http://127.0.0.1:$port/health/ready" >/dev/null; do
            kill -0 "$pid" 2>/dev/null || { echo "the service on port $port stopped before it was ready" >&2; exit 1; }
            sleep 0.2
        done
    done
}
stop_services() {
    kill "$identity_pid" "$payments_pid"
    wait "$identity_pid" "$payments_pid" 2>/dev/null || true
    pids=()
}
start_services

"$bin/coffer" admin --data-dir "$state" --identity-database-url "$identity_db" demo --base-url http://127.0.0.1:18192 >/dev/null
account="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["account_uuids"][0])' "$state/credentials.json")"
organisation="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["organisation_uuid"])' "$state/credentials.json")"
# Payments learns of the account from identity's events.
for _ in $(seq 1 150); do
    profiles="$(psql -qtA "$payments_db" -c "SELECT count(*) FROM payment_method_profiles WHERE account_uuid = '$account'")"
    [[ "$profiles" == 4 ]] && break
    sleep 0.2
done

# Waits until the service has folded what the triggers appended (docs/payments.md,
# "Search"): counts, and where the code has them, roll-ups and parameter counts; searches
# are right before that too, only slower.
wait_for_folded_counts() {
    local changes
    changes="$(psql -qtA "$payments_db" -c "SELECT string_agg(format('EXISTS (SELECT 1 FROM %I)', relname), ' OR ')
        FROM pg_class WHERE relkind = 'r' AND relname LIKE 'payment\_%changes'")"
    for _ in $(seq 1 9000); do
        unfolded="$(psql -qtA "$payments_db" -c "SELECT $changes")"
        [[ "$unfolded" == f ]] && break
        sleep 0.2
    done
    [[ "$unfolded" == f ]] || { echo "the changes were not folded within 30 minutes" >&2; exit 1; }
    # Every table (the roll-ups too, when the code has them); the catalogue's own are
    # skipped with a warning each, which says nothing here.
    psql -q "$payments_db" -c "VACUUM ANALYZE" 2>&1 | grep -v "^WARNING:  skipping" >&2 || true
}
