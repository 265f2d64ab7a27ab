#!/bin/sh
# Run by the postgres image once, when it makes an empty data directory: a login role and a
# database per service, the role owning only its own database, so that no service can read
# another's tables. Each password is the one in that service's coffer-<service>-db URL; both
# come from the dev-only Secrets of kustomization.yaml.
set -eu

for service in identity payments billing notifications onboarding reconciliation; do
    password="$(cat "/run/secrets/coffer-dev-postgres/${service}")"
    # psql quotes the variables itself (:"name" as an identifier, :'name' as a literal).
    psql -v ON_ERROR_STOP=1 --no-psqlrc --no-password \
        --username "$POSTGRES_USER" --dbname postgres \
        --set=role="coffer_${service}" --set=password="$password" <<'SQL'
CREATE ROLE :"role" LOGIN PASSWORD :'password';
CREATE DATABASE :"role" OWNER :"role";
SQL
done
