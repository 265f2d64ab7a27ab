#!/usr/bin/env bash
# POST /payments through the Stripe connector beside localstripe's own rate for the same
# calls, in one run, each from an empty localstripe (docs/benchmarks.md): a localstripe of
# its own (LOCALSTRIPE_PORT, 18422 by default) and `coffer dev` (release) reaching it.
# Usage: scripts/bench-stripe.sh [payments (at most 1000)] [clients]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

count="${1:-1000}"
clients="${2:-8}"
port="${BENCH_PORT:-18096}"
export LOCALSTRIPE_PORT="${LOCALSTRIPE_PORT:-18422}"
key=sk_test_51HcofferStripeBenchKey00000000001

api="$(scripts/localstripe.sh)"
cargo build --release -p coffer >&2
bin=target/release
[[ -n "${CARGO_TARGET_DIR:-}" ]] && bin="$CARGO_TARGET_DIR/release"
data="$(mktemp -d /tmp/coffer-bench-stripe.XXXXXX)"
server_pid=""
cleanup() {
    [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
    rm -rf "$data" "$data.log"
}
trap cleanup EXIT

# localstripe alone: the three calls the connector makes per payment.
python3 scripts/bench_stripe.py localstripe "$api" "$count" "$clients"

COFFER_LOG__LEVEL=warn "$bin/coffer" dev --listen "127.0.0.1:$port" --data-dir "$data" \
    --stripe-api "$api" >"$data.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 200); do
    curl -fsS "http://127.0.0.1:$port/health/ready" >/dev/null 2>&1 && break
    sleep 0.1
done
curl -fsS "http://127.0.0.1:$port/health/ready" >/dev/null
account="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["account_uuids"][0])' "$data/credentials.json")"
printf '%s\n' "$key" | "$bin/coffer" admin --data-dir "$data" connector-account set \
    --account "$account" --name bench --mode test >/dev/null
"$bin/coffer" admin --data-dir "$data" profile set --account "$account" --name card_stripe \
    --connector-account bench >/dev/null

# The same payments through Coffer.
python3 scripts/bench_stripe.py coffer "$api" "$count" "$clients" "http://127.0.0.1:$port" "$data/credentials.json"
