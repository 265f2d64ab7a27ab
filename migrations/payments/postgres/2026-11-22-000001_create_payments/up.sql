-- Payments' own data. Organisations and accounts are a replica built from identity's events.

CREATE TABLE organisations (
    uuid TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    active BOOLEAN NOT NULL,
    updated_ms BIGINT NOT NULL
);

CREATE TABLE accounts (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    name TEXT NOT NULL,
    active BOOLEAN NOT NULL,
    updated_ms BIGINT NOT NULL
);
CREATE INDEX accounts_organisation_idx ON accounts (organisation_uuid);

CREATE TABLE supporters (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    created BIGINT NOT NULL,
    raw TEXT,
    raw_name TEXT,
    legal_entity TEXT,
    honorific_prefix TEXT,
    salutation TEXT,
    first_name TEXT,
    middle_name TEXT,
    last_name TEXT,
    care_of TEXT,
    raw_address TEXT,
    street TEXT,
    house_number TEXT,
    address_addendum TEXT,
    post_office_box TEXT,
    postal_code TEXT,
    city TEXT,
    region_level_1 TEXT,
    region_level_2 TEXT,
    country TEXT,
    email TEXT,
    phone TEXT,
    birth_day TEXT,
    birth_month TEXT,
    birth_year TEXT,
    locale TEXT,
    custom_parameters TEXT NOT NULL,
    service_parameters TEXT NOT NULL
);
CREATE INDEX supporters_organisation_idx ON supporters (organisation_uuid, created, uuid);

-- The first response to each Idempotency-Key, stored with the effect it answers.
CREATE TABLE idempotency_keys (
    client_id TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status INTEGER NOT NULL,
    response TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (client_id, idempotency_key)
);
-- Domain events (crates/events): the outbox this service publishes from, and the inbox
-- that makes its consumers apply each event once.
CREATE TABLE outbox (
    seq BIGSERIAL PRIMARY KEY,
    event_id TEXT NOT NULL UNIQUE,
    topic TEXT NOT NULL,
    message_key TEXT NOT NULL,
    partition_no INTEGER NOT NULL,
    payload TEXT NOT NULL,
    traceparent TEXT,
    created_ms BIGINT NOT NULL,
    published_ms BIGINT
);
CREATE INDEX outbox_pending_idx ON outbox (partition_no, seq) WHERE published_ms IS NULL;
CREATE INDEX outbox_published_idx ON outbox (published_ms) WHERE published_ms IS NOT NULL;

CREATE TABLE inbox (
    consumer TEXT NOT NULL,
    event_id TEXT NOT NULL,
    handled_ms BIGINT NOT NULL,
    PRIMARY KEY (consumer, event_id)
);
