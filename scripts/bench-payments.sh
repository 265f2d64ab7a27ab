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
"$bin/coffer" bench-payments --credentials "$state/credentials.json" --identity-url http://127.0.0.1:18191 \
    --server-pid "$payments_pid" "$@"

# The same reads from wrk, a load generator in C that takes a fraction of bench-payments'
# CPU, so that more of the two cores serve reads (both figures go to docs/benchmarks.md).
echo "== GET /payments/{uuid} from wrk (2 threads, 32 connections as bench-payments has clients, 10 s)" >&2
command -v wrk >/dev/null || apt-get install -y -qq wrk >&2 || { apt-get update -qq && apt-get install -y -qq wrk; } >&2
python3 - "$state/credentials.json" >"$state/token" <<'PY'
import json, sys, urllib.parse, urllib.request
c = json.load(open(sys.argv[1]))
form = urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": c["client_id"], "client_secret": c["client_secret"]})
print(json.load(urllib.request.urlopen("http://127.0.0.1:18191/oauth2/token", form.encode()))["access_token"])
PY
psql -qtA "$payments_db" -c "SELECT '/payments/' || uuid FROM payments ORDER BY created DESC LIMIT ${READ_PAYMENTS:-256}" >"$state/paths"
cat >"$state/reads.lua" <<'LUA'
-- Each of the two threads walks the paths from its own half, so reads are of distinct payments.
local paths = {}
for line in io.lines(os.getenv("WRK_PATHS")) do paths[#paths + 1] = line end
local threads = 0
function setup(thread) thread:set("offset", threads * math.floor(#paths / 2)); threads = threads + 1 end
local i = 0
function request()
  i = i + 1
  return wrk.format("GET", paths[(i + offset) % #paths + 1])
end
LUA
WRK_PATHS="$state/paths" wrk -t2 -c32 -d10s --latency -H "Authorization: Bearer $(cat "$state/token")" \
    -s "$state/reads.lua" http://127.0.0.1:18192 | tee "$state/wrk.out" >&2
if grep -q "Non-2xx" "$state/wrk.out"; then echo "wrk: some reads were not answered 200" >&2; exit 1; fi

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
"$bin/coffer" bench-payments --credentials "$state/credentials.json" --identity-url http://127.0.0.1:18191 --phases search "$@"
echo "== the same search by hand" >&2
psql -qtA "$payments_db" >&2 <<SQL
\timing on
SELECT count(*) FROM payments WHERE account_uuid = '$account' AND status = 'succeeded';
SELECT payment_method, count(*) FROM payments WHERE account_uuid = '$account' AND status = 'succeeded' GROUP BY payment_method ORDER BY 2 DESC LIMIT 10;
SELECT uuid FROM payments WHERE account_uuid = '$account' AND status = 'succeeded' ORDER BY created DESC, uuid DESC LIMIT 10;
SQL
