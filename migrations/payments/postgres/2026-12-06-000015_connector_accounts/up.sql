-- A payment provider account of a Coffer account (docs/payments.md, "Connecting Stripe"):
-- the provider's secret API key and its webhook signing secrets, sealed with the master
-- keys (docs/decisions/secrets.md), never answered by the API. A live key never sits in a
-- test account, nor the reverse: `mode` and the key's prefix agree. During a rotation of
-- the webhook secret the one before it still verifies (`previous_webhook_secret`).
CREATE TABLE connector_accounts (
    uuid TEXT PRIMARY KEY,
    account_uuid TEXT NOT NULL,
    name TEXT NOT NULL,
    provider TEXT NOT NULL,
    mode TEXT NOT NULL,
    secret_key TEXT NOT NULL,
    secret_key_hint TEXT NOT NULL,
    webhook_secret TEXT,
    previous_webhook_secret TEXT,
    created BIGINT NOT NULL,
    updated BIGINT NOT NULL,
    UNIQUE (account_uuid, name)
);

-- Every change to a connector account: what changed, who changed it, when. It names the
-- key by its hint (its prefix and last four characters), never a secret.
CREATE TABLE connector_account_changes (
    uuid TEXT PRIMARY KEY,
    connector_account_uuid TEXT NOT NULL REFERENCES connector_accounts (uuid),
    account_uuid TEXT NOT NULL,
    change TEXT NOT NULL,
    secret_key_hint TEXT NOT NULL,
    actor TEXT NOT NULL,
    at BIGINT NOT NULL
);
CREATE INDEX connector_account_changes_account_idx ON connector_account_changes (connector_account_uuid, at);
