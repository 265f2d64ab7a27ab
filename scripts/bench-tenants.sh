#!/usr/bin/env bash
# One tenant's heaviest load beside another's latency, on PostgreSQL (docs/benchmarks.md):
# a quiet organisation (the demo one, 256 payments) reads its payments from 4 connections
# and searches them from 2, first alone, then while a heavy organisation (its own API
# client, <payments> payments) floods reads from 64 connections, then while it sends the
# heaviest search SPEC.md allows (size 10,000, sorted, four aggregations) from 12. Every
# client is wrk; the quiet organisation's answers must all be 200, none slower than
# WRK_TIMEOUT.
# Usage: scripts/bench-tenants.sh [heavy organisation's payments (1,000,000)] [seconds (10)]
#   BENCH_BIN  binaries built elsewhere, used as they are
#   HEAVY_SEARCHES  the heavy organisation's connections searching (12; past
#                   database.searches_per_organisation its searches wait in its line, four
#                   per running one, and past that are answered 429 at once)
#   HEAVY_SIZE      the hits its searches ask for (10,000; 0 leaves the aggregations alone)
#   QUIET_SEARCHES  the quiet organisation's connections searching (2)
#   QUIET_PACE_MS   how long each quiet connection waits before each request (0: none, so
#                   the quiet organisation alone loads the machine; 10 keeps it below 400
#                   reads and 200 searches a second, leaving cores idle)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

payments="${1:-1000000}"
seconds="${2:-10}"
[[ "$payments" =~ ^[0-9]+$ && "$payments" -ge 256 && "$payments" -le 10000000 ]] || { echo "payments: 256 to 10,000,000" >&2; exit 2; }
[[ "$seconds" =~ ^[0-9]+$ && "$seconds" -ge 1 && "$seconds" -le 600 ]] || { echo "seconds: 1 to 600" >&2; exit 2; }
for bound in "HEAVY_SEARCHES ${HEAVY_SEARCHES:-12} 1 1000" "HEAVY_SIZE ${HEAVY_SIZE:-10000} 0 10000" "QUIET_SEARCHES ${QUIET_SEARCHES:-2} 1 1000" "QUIET_PACE_MS ${QUIET_PACE_MS:-0} 0 10000"; do
    read -r name value least most <<<"$bound"
    [[ "$value" =~ ^[0-9]+$ && "$value" -ge "$least" && "$value" -le "$most" ]] || { echo "$name: $least to $most" >&2; exit 2; }
done

# shellcheck source=scripts/wrk.sh
source scripts/wrk.sh
# shellcheck source=scripts/bench-pg-services.sh
source scripts/bench-pg-services.sh

admin() { "$bin/coffer" admin --data-dir "$state" --identity-database-url "$identity_db" "$@"; }
heavy_organisation="$(admin organisation create --name "Heavy Aid" | jq -r .uuid)"
heavy_account="$(admin account create --organisation "$heavy_organisation" --name main | jq -r .uuid)"
admin client create --organisation "$heavy_organisation" >"$state/heavy.json"

quiet_token="$(wrk_token "$state/credentials.json" http://127.0.0.1:18191/oauth2/token)"
heavy_token="$(wrk_token "$state/heavy.json" http://127.0.0.1:18191/oauth2/token)"

seed() { # $1: organisation, $2: account, $3: how many
    psql -q "$payments_db" -c "INSERT INTO payments (uuid, organisation_uuid, account_uuid, created, updated, test_mode,
        payment_method, profile, payment_provider, status, amount_value, currency, refunded_amount, payment_information, custom_parameters)
    SELECT gen_random_uuid()::text, '$1', '$2', 1735689600 + i * 30, 1735689600 + i * 30, true,
        (ARRAY['card', 'twint', 'paypal', 'sepa_dd'])[1 + i % 4], 'card_test', 'coffer_test',
        (ARRAY['succeeded', 'succeeded', 'failed', 'pending', 'succeeded'])[1 + i % 5], 100 + (i * 7919) % 100000, 'CHF', 0, '{}',
        CASE WHEN i % 4 = 0 THEN '{}' ELSE '{\"campaign\":\"spring-' || (i % 13) || '\"}' END
    FROM generate_series(1::bigint, $3) AS i" >&2
}
echo "== seeding $payments payments of the heavy organisation, 256 of the quiet one" >&2
seed "$heavy_organisation" "$heavy_account" "$payments"
seed "$organisation" "$account" 256
psql -q "$payments_db" -c "VACUUM ANALYZE payments" >&2
wait_for_folded_counts
# The seed's pages written out now rather than by a checkpoint in the middle of a phase
# (a superuser's: the bench's own role, else postgres on the same server).
psql -q "$payments_db" -c CHECKPOINT 2>/dev/null || psql -q "$(sed -E 's#//[^@/]*@#//postgres@#' <<<"$payments_db")" -c CHECKPOINT 2>/dev/null ||
    echo "bench-tenants: no CHECKPOINT (no superuser here): one may fall inside a phase" >&2
paths() { # $1: organisation
    psql -qtA "$payments_db" -c "SELECT '/payments/' || uuid FROM payments WHERE organisation_uuid = '$1' ORDER BY created DESC LIMIT 256"
}
paths "$organisation" >"$state/quiet.paths"
paths "$heavy_organisation" >"$state/heavy.paths"

wrk_lua "$state/client.lua"
client() { # $1: name, $2: token, $3: connections, then WRK_PATHS= or WRK_BODY= as env
    local name="$1" bearer="$2" connections="$3"
    shift 3
    env "$@" wrk -t1 -c"$connections" -d"${seconds}s" --latency --timeout "$WRK_TIMEOUT" -H "Authorization: Bearer $bearer" \
        -s "$state/client.lua" http://127.0.0.1:18192 >"$state/$name.out"
}
quiet_search="{\"query\": {\"\$match\": {\"account_uuid\": \"$account\"}}, \"size\": 20}"
heavy_search="{\"query\": {\"\$or\": [{\"\$match\": {\"account_uuid\": \"$heavy_account\"}}, {\"\$range\": {\"amount.value\": {\"gte\": 1}}}]},
    \"size\": ${HEAVY_SIZE:-10000}, \"sort\": [{\"field\": \"amount.value\", \"direction\": \"desc\"}],
    \"aggs\": {\"methods\": {\"type\": \"term\", \"field\": \"payment_method\"}, \"statuses\": {\"type\": \"term\", \"field\": \"status\"},
             \"amounts\": {\"type\": \"stats\", \"field\": \"amount.value\"}, \"currencies\": {\"type\": \"term\", \"field\": \"amount.currency\"}}}"

phase() { # $1: the phase's name; then the heavy organisation's client, if any: connections, env
    local name="$1" heavy=""
    shift
    echo "== $name" >&2
    client quiet-reads "$quiet_token" 4 WRK_PATHS="$state/quiet.paths" WRK_PACE_MS="${QUIET_PACE_MS:-0}" &
    local reads=$!
    client quiet-searches "$quiet_token" "${QUIET_SEARCHES:-2}" WRK_BODY="$quiet_search" WRK_PACE_MS="${QUIET_PACE_MS:-0}" &
    local searches=$!
    if (($# > 0)); then
        client heavy "$heavy_token" "$@" &
        heavy=$!
    fi
    wait "$reads"
    wait "$searches"
    [[ -z "$heavy" ]] || wait "$heavy"
    for quiet in quiet-reads quiet-searches; do
        if wrk_failed "$state/$quiet.out"; then
            echo "the quiet organisation was not answered 200 in $name:" >&2
            cat "$state/$quiet.out" >&2
            exit 1
        fi
    done
    echo "{\"phase\": \"$name\", \"quiet_reads\": $(wrk_summary "$state/quiet-reads.out"), \"quiet_searches\": $(wrk_summary "$state/quiet-searches.out")${heavy:+, \"heavy\": $(wrk_summary "$state/heavy.out")}}"
}
read -r status bytes took < <(curl -s -o /dev/null -w '%{http_code} %{size_download} %{time_total}\n' -X POST \
    -H "Authorization: Bearer $heavy_token" -H 'Content-Type: application/json' -d "$heavy_search" http://127.0.0.1:18192/search/payments)
echo "{\"heavy_search_alone\": {\"status\": $status, \"bytes\": $bytes, \"seconds\": $took}}"
phase "quiet alone"
phase "heavy organisation floods reads (64 connections)" 64 WRK_PATHS="$state/heavy.paths"
phase "heavy organisation's heaviest search (${HEAVY_SEARCHES:-12} connections)" "${HEAVY_SEARCHES:-12}" WRK_BODY="$heavy_search"
