#!/usr/bin/env bash
# Runs Coffer distributed on this machine: one PostgreSQL database per service, a
# Kafka-protocol broker, every service binary on its own loopback port, and the nginx
# gateway of deploy/gateway on one public port. Stays in the foreground; SIGINT or SIGTERM
# stops everything it started.
#
#   GATEWAY_PORT      public port (default 8080)
#   COFFER_STATE_DIR  logs, generated gateway config, credentials.json (default .coffer-distributed)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$(pwd)"

gateway_port="${GATEWAY_PORT:-8080}"
state="${COFFER_STATE_DIR:-.coffer-distributed}"
mkdir -p "$state"
state="$(cd "$state" && pwd)"

# Each service: name and loopback port, as deploy/gateway/routes.conf expects them. The
# gateway reaches them from 127.0.0.1, so that is the proxy whose X-Forwarded-For they believe.
services=("identity:8081" "payments:8082" "billing:8083" "notifications:8084" "onboarding:8085"
    "reconciliation:8086")

log() { printf 'run-distributed: %s\n' "$*" >&2; }

pids=()
cleanup() {
    trap - INT TERM EXIT
    log "stopping"
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if ! command -v nginx >/dev/null 2>&1; then
    if [[ "$(id -u)" == 0 ]]; then
        log "installing nginx (Debian's nginx-light)"
        apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >&2
    else
        log "nginx is missing: install Debian's nginx-light (or nginx) and run again"
        exit 1
    fi
fi

pg_base="$(scripts/ensure-postgres.sh)"
# Card fingerprints need a stable secret; one is made once per state directory.
if [[ ! -s "$state/fingerprint.key" ]]; then
    python3 -c 'import secrets; print(secrets.token_hex(32))' >"$state/fingerprint.key"
fi
fingerprint_key="$(cat "$state/fingerprint.key")"
# The master key that seals what identity, payments, notifications, onboarding and
# reconciliation store (docs/decisions/secrets.md); one per state directory, readable by its
# owner only.
if [[ ! -s "$state/master.keys" ]]; then
    (umask 077 && python3 -c 'import base64, secrets; print("k1:" + base64.b64encode(secrets.token_bytes(32)).decode())' >"$state/master.keys")
fi
master_keys="$(cat "$state/master.keys")"
brokers="$(scripts/kafka.sh)"
# Reconciliation's bucket: scripts/s3.sh prints
# http://ACCESS:SECRET@127.0.0.1:19000/BUCKET?region=REGION, taken apart here into the
# endpoint (scheme, host and port only), bucket, region and keys. It is the bucket the tests
# use too; reconciliation lists only its own sources' prefixes and leaves other files alone.
s3_url="$(scripts/s3.sh)"
s3_part() {
    python3 - "$s3_url" "$1" <<'PY'
import sys
from urllib.parse import parse_qs, unquote, urlsplit
url = urlsplit(sys.argv[1])
parts = {
    "endpoint": f"{url.scheme}://{url.netloc.rpartition('@')[2]}",
    "bucket": url.path.strip("/"),
    "region": parse_qs(url.query).get("region", ["us-east-1"])[0],
    "access_key": unquote(url.username or ""),
    "secret_key": unquote(url.password or ""),
}
print(parts[sys.argv[2]])
PY
}
s3_endpoint="$(s3_part endpoint)"
s3_bucket="$(s3_part bucket)"
s3_region="$(s3_part region)"
s3_access_key="$(s3_part access_key)"
s3_secret_key="$(s3_part secret_key)"
cargo build --release -p coffer -p coffer-identity -p coffer-payments -p coffer-billing \
    -p coffer-notifications -p coffer-onboarding -p coffer-reconciliation >&2
bin="${CARGO_TARGET_DIR:-$root/target}/release"

# Onboarding calls identity's internal operations as a platform client: one made per
# state directory, on identity's database, before anything starts.
psql -q "$pg_base" -tc "SELECT 1 FROM pg_database WHERE datname = 'coffer_identity'" | grep -q 1 ||
    psql -q "$pg_base" -c "CREATE DATABASE coffer_identity" >&2
if [[ ! -s "$state/onboarding-client.json" ]]; then
    (umask 077 && "$bin/coffer" admin --data-dir "$state" \
        --identity-database-url "${pg_base%/*}/coffer_identity" client create --platform \
        >"$state/onboarding-client.json")
fi
onboarding_client() {
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
        "$state/onboarding-client.json" "$1"
}

wait_ready() {
    local url="$1" name="$2"
    for _ in $(seq 1 150); do
        if curl -sf "$url" >/dev/null 2>&1; then return 0; fi
        sleep 0.2
    done
    log "$name did not become ready; its log:"
    tail -n 30 "$state/$name.log" >&2
    exit 1
}

for entry in "${services[@]}"; do
    name="${entry%%:*}"
    port="${entry##*:}"
    db="coffer_${name}"
    psql -q "$pg_base" -tc "SELECT 1 FROM pg_database WHERE datname = '$db'" | grep -q 1 ||
        psql -q "$pg_base" -c "CREATE DATABASE $db" >&2
    url="${pg_base%/*}/$db"
    log "starting coffer-$name on 127.0.0.1:$port"
    COFFER_DATABASE_URL="$url" \
        COFFER_KAFKA__BROKERS="$brokers" \
        COFFER_AUTH__JWKS_URL="http://127.0.0.1:8081/.well-known/jwks.json" \
        COFFER_PAYMENTS__PUBLIC_BASE_URL="http://127.0.0.1:$gateway_port" \
        COFFER_PAYMENTS__FINGERPRINT_KEY="$fingerprint_key" \
        COFFER_SECRETS__KEYS="$master_keys" \
        COFFER_SSO__ISSUER="http://127.0.0.1:$gateway_port" \
        COFFER_ONBOARDING__IDENTITY_URL="http://127.0.0.1:8081" \
        COFFER_ONBOARDING__CLIENT_ID="$(onboarding_client client_id)" \
        COFFER_ONBOARDING__CLIENT_SECRET="$(onboarding_client client_secret)" \
        COFFER_ONBOARDING__CAPTCHA=test \
        COFFER_RECONCILIATION__S3__ENDPOINT="$s3_endpoint" \
        COFFER_RECONCILIATION__S3__BUCKET="$s3_bucket" \
        COFFER_RECONCILIATION__S3__REGION="$s3_region" \
        COFFER_RECONCILIATION__S3__ACCESS_KEY="$s3_access_key" \
        COFFER_RECONCILIATION__S3__SECRET_KEY="$s3_secret_key" \
        COFFER_HTTP__LISTEN="127.0.0.1:$port" \
        COFFER_HTTP__TRUSTED_PROXIES=127.0.0.1 \
        COFFER_LOG__FORMAT=text \
        "$bin/coffer-$name" serve >"$state/$name.log" 2>&1 &
    pids+=("$!")
    wait_ready "http://127.0.0.1:$port/health/ready" "$name"
done

# The whole API description and its reference, which the gateway sends /openapi.json and
# /docs to (each service serves only its own part).
log "starting the API description on 127.0.0.1:8087"
"$bin/coffer" openapi --listen 127.0.0.1:8087 >"$state/docs.log" 2>&1 &
pids+=("$!")
wait_ready "http://127.0.0.1:8087/health/ready" docs

# The gateway's config, with the public port and an absolute path to the routing table.
sed -e "s|listen 8080;|listen 127.0.0.1:$gateway_port;|" \
    -e "s|include routes.conf;|include $root/deploy/gateway/routes.conf;|" \
    deploy/gateway/nginx.conf >"$state/nginx.conf"
log "starting the gateway on 127.0.0.1:$gateway_port"
nginx -p "$state" -c "$state/nginx.conf" -e "$state/gateway-error.log" \
    -g "daemon off; pid $state/nginx.pid;" >"$state/gateway.log" 2>&1 &
pids+=("$!")
wait_ready "http://127.0.0.1:$gateway_port/.well-known/jwks.json" gateway

base_url="http://127.0.0.1:$gateway_port"
"$bin/coffer" admin --data-dir "$state" --identity-database-url "${pg_base%/*}/coffer_identity" \
    demo --base-url "$base_url" >/dev/null
python3 - "$state/credentials.json" "$brokers" <<'PY'
import json, sys
path, brokers = sys.argv[1], sys.argv[2]
with open(path) as f:
    credentials = json.load(f)
credentials["kafka_brokers"] = brokers
with open(path, "w") as f:
    json.dump(credentials, f, indent=2)
    f.write("\n")
PY

log "Coffer (distributed) is serving at $base_url; credentials in $state/credentials.json"
log "partner onboarding runs with onboarding.captcha = test (the token test-ok passes)"
log "Ctrl-C stops everything"
# Runs until a signal (the trap stops everything), a child exits, or the parent goes away:
# `make` does not pass SIGTERM on to its recipe, so its death is the signal here.
parent="$PPID"
while kill -0 "$parent" 2>/dev/null; do
    for pid in "${pids[@]}"; do
        if ! kill -0 "$pid" 2>/dev/null; then
            log "a process exited; see the logs in $state"
            exit 1
        fi
    done
    sleep 1 &
    wait $! || true
done
log "the parent process is gone"
