-- The provider notifications payments has applied, by the connector account they came to
-- and the provider's event id: a notification delivered again (providers retry until they
-- hear a 2xx, and may send one event twice) is answered without being applied again
-- (docs/payments.md, "Provider notifications"). Rows older than the providers' retry
-- window are forgotten.
CREATE TABLE provider_notifications (
    connector_account_uuid TEXT NOT NULL,
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    received BIGINT NOT NULL,
    PRIMARY KEY (connector_account_uuid, event_id)
);
CREATE INDEX provider_notifications_received_idx ON provider_notifications (received);
