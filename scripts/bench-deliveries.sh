#!/usr/bin/env bash
# Benchmarks webhook deliveries (docs/benchmarks.md): first the HTTPS receiver's own
# capacity under a plain load tool (wrk), then `coffer bench-deliveries` against the same
# receiver: deliveries per second to one endpoint and to ten, the lag from commit to
# receipt at a steady rate, and both again beside an endpoint that never answers;
# in-process on SQLite and on Kafka with PostgreSQL. Usage: scripts/bench-deliveries.sh
# [extra bench-deliveries flags]   (BENCH_PORT to move the receiver)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

port="${BENCH_PORT:-18450}"
pg_base="$(scripts/ensure-postgres.sh)"
# shellcheck source=scripts/bench-autovacuum.sh
source scripts/bench-autovacuum.sh
brokers="$(scripts/kafka.sh)"
if ! command -v wrk >/dev/null 2>&1; then
    echo "installing wrk (Debian's package)" >&2
    apt-get install -y -qq wrk >&2 || { apt-get update -qq >&2 && apt-get install -y -qq wrk >&2; }
fi
state="$(mktemp -d /tmp/coffer-bench-deliveries.XXXXXX)"
receiver_pid=""
cleanup() {
    autovacuum_restore
    [[ -n "$receiver_pid" ]] && kill "$receiver_pid" 2>/dev/null && wait "$receiver_pid" 2>/dev/null
    rm -rf "$state"
}
trap cleanup EXIT
autovacuum_on

cargo build --release -p coffer >&2
bin="${CARGO_TARGET_DIR:-target}/release"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=localhost \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -addext "basicConstraints=critical,CA:FALSE" \
    -keyout "$state/key.pem" -out "$state/cert.pem" 2>/dev/null

# The receiver alone, loaded by wrk with a delivery-sized POST over kept-alive connections.
"$bin/coffer" bench-deliveries --receiver-only --cert "$state/cert.pem" --key "$state/key.pem" --port "$port" &
receiver_pid=$!
for _ in $(seq 1 100); do
    curl -s --cacert "$state/cert.pem" -o /dev/null "https://localhost:$port/" && break
    sleep 0.1
done
cat > "$state/post.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"event":{"id":"7d1e9b36-5d8e-4b8e-9f57-0a3c2f1e4b6d","name":"coffer.event.payment_gateway.payment.succeeded","timestamp":0,"object":"payment","object_uuid":"1b4e28ba-2fa1-41d2-883f-0016d3cca427","organisation_uuid":"6f1c0e8e-2d6b-4c55-9a39-2b8f1e1f0a77","account_uuid":null,"data":{"payment_method":"card","amount":{"value":"1000","currency":"CHF"}}}}'
LUA
echo "== the receiver alone (wrk, 2 threads, 32 connections, 10 s)" >&2
wrk -t2 -c32 -d10s -s "$state/post.lua" "https://localhost:$port/" >&2
kill "$receiver_pid" && wait "$receiver_pid" 2>/dev/null || true
receiver_pid=""

echo "== deliveries" >&2
"$bin/coffer" bench-deliveries --cert "$state/cert.pem" --key "$state/key.pem" --port "$port" \
    --kafka "$brokers" --postgres "$pg_base" "$@"
