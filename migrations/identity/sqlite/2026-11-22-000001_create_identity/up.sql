-- Identity's tables. Identifiers are UUIDs kept as text: the same diesel schema then
-- serves PostgreSQL and SQLite (docs/decisions/storage.md).

CREATE TABLE organisations (
    uuid TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    created BIGINT NOT NULL,
    approval_status TEXT NOT NULL,
    active BOOLEAN NOT NULL,
    merchant_category_code TEXT,
    locale TEXT
);
CREATE INDEX organisations_created_idx ON organisations (created, uuid);
CREATE INDEX organisations_name_lower_idx ON organisations (lower(name));

CREATE TABLE accounts (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT NOT NULL REFERENCES organisations (uuid),
    name TEXT NOT NULL,
    created BIGINT NOT NULL,
    active BOOLEAN NOT NULL
);
CREATE INDEX accounts_organisation_idx ON accounts (organisation_uuid, created);

CREATE TABLE addresses (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT REFERENCES organisations (uuid),
    account_uuid TEXT REFERENCES accounts (uuid),
    created BIGINT NOT NULL,
    address_line1 TEXT NOT NULL,
    address_line2 TEXT NOT NULL,
    postal_code TEXT NOT NULL,
    city TEXT NOT NULL,
    country_code TEXT NOT NULL,
    type TEXT NOT NULL,
    CHECK ((organisation_uuid IS NULL) <> (account_uuid IS NULL))
);
CREATE INDEX addresses_organisation_idx ON addresses (organisation_uuid);
CREATE INDEX addresses_account_idx ON addresses (account_uuid);

-- Metadata of organisations and accounts alike; owner_uuid is one or the other.
CREATE TABLE metadata (
    owner_uuid TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (owner_uuid, key)
);

CREATE TABLE billing_data (
    account_uuid TEXT PRIMARY KEY REFERENCES accounts (uuid),
    account_holder TEXT NOT NULL,
    iban TEXT NOT NULL,
    vat_number TEXT NOT NULL,
    recipient_emails TEXT NOT NULL,
    address_line1 TEXT NOT NULL,
    address_line2 TEXT NOT NULL,
    postal_code TEXT NOT NULL,
    city TEXT NOT NULL,
    country_code TEXT NOT NULL
);

CREATE TABLE api_clients (
    client_id TEXT PRIMARY KEY,
    secret_sha256 TEXT NOT NULL,
    scope TEXT NOT NULL,
    created BIGINT NOT NULL,
    disabled_at BIGINT
);

CREATE TABLE api_client_organisations (
    client_id TEXT NOT NULL REFERENCES api_clients (client_id),
    organisation_uuid TEXT NOT NULL REFERENCES organisations (uuid),
    PRIMARY KEY (client_id, organisation_uuid)
);

CREATE TABLE signing_keys (
    kid TEXT PRIMARY KEY,
    private_key_pkcs8 TEXT NOT NULL,
    created BIGINT NOT NULL,
    retired_at BIGINT
);
