-- Billing's own data. Organisations and accounts are a replica built from identity's
-- events (crates/directory).
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

-- Subscription plans of an organisation (account_uuid NULL) or of one of its accounts.
-- The global default plan is not a row: every organisation's list shows it (plans/domain.rs).
CREATE TABLE subscription_plans (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT,
    name TEXT NOT NULL,
    is_default BOOLEAN NOT NULL,
    dunning_configuration TEXT NOT NULL,
    notification_configuration TEXT NOT NULL,
    created BIGINT NOT NULL,
    updated BIGINT NOT NULL
);
CREATE UNIQUE INDEX subscription_plans_name_idx ON subscription_plans (organisation_uuid, name);

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
