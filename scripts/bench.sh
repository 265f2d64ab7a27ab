#!/usr/bin/env bash
# Benchmarks coffer-identity on PostgreSQL over loopback, as docs/benchmarks.md records.
# Usage: scripts/bench.sh [extra `coffer bench` flags]   (BENCH_PORT, PGPORT to move ports)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

port="${BENCH_PORT:-18090}"
pg_base="$(scripts/ensure-postgres.sh)"
pg_url="${pg_base%/*}/coffer_bench"
state="$(mktemp -d /tmp/coffer-bench.XXXXXX)"
server_pid=""
cleanup() {
    [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
    rm -rf "$state"
}
trap cleanup EXIT

cargo build --release -p coffer -p coffer-identity >&2
bin=target/release
[[ -n "${CARGO_TARGET_DIR:-}" ]] && bin="$CARGO_TARGET_DIR/release"

psql -q "$pg_base" -c "DROP DATABASE IF EXISTS coffer_bench WITH (FORCE)" -c "CREATE DATABASE coffer_bench" >&2
export COFFER_DATABASE_URL="$pg_url"
"$bin/coffer-identity" migrate

admin() { "$bin/coffer" admin --identity-database-url "$pg_url" "$@"; }
org=$(admin organisation create --name "Bench Foundation" --locale de_CH --merchant-category-code 8398 | jq -r .uuid)
admin account create --organisation "$org" --name Donations >/dev/null
admin account create --organisation "$org" --name Events >/dev/null
client=$(admin client create --organisation "$org")

# A fixed master key, as in bench-payments.sh: the database is made afresh for every run.
COFFER_SECRETS__KEYS=bench:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8= \
    COFFER_HTTP__LISTEN="127.0.0.1:$port" COFFER_SSO__ISSUER="http://127.0.0.1:$port" COFFER_LOG__LEVEL=warn "$bin/coffer-identity" serve &
server_pid=$!
for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$port/health/ready" >/dev/null && break
    sleep 0.1
done

jq -n --arg base "http://127.0.0.1:$port" --arg org "$org" --argjson c "$client" \
    '{base_url: $base, client_id: $c.client_id, client_secret: $c.client_secret, organisation_uuid: $org, account_uuids: []}' \
    >"$state/credentials.json"
sleep 2
"$bin/coffer" bench --credentials "$state/credentials.json" --server-pid "$server_pid" "$@"
