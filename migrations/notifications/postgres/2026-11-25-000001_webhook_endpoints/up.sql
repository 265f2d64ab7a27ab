-- Notifications' own data. The organisations and accounts replica, the outbox and inbox and
-- the idempotency keys come from the shared sets in Migrations::includes (crates/directory,
-- crates/events, crates/store).

-- Where an organisation's events are delivered. The password and the signing keys are
-- sealed with the service's master keys (coffer-secrets); a key being rotated out is kept
-- beside the new one until previous_hmac_key_until (Unix seconds).
CREATE TABLE webhook_endpoints (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT,
    alias TEXT,
    endpoint TEXT NOT NULL,
    username TEXT,
    password_sealed TEXT,
    hmac_key_sealed TEXT NOT NULL,
    previous_hmac_key_sealed TEXT,
    previous_hmac_key_until BIGINT,
    enabled BOOLEAN NOT NULL,
    disabled_reason TEXT,
    created BIGINT NOT NULL,
    updated BIGINT NOT NULL
);
CREATE INDEX webhook_endpoints_organisation_idx ON webhook_endpoints (organisation_uuid, endpoint);
