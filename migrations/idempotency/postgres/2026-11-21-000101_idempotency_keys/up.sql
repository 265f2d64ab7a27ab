-- The first response to each Idempotency-Key, stored with the effect it answers
-- (crates/store/src/idempotency.rs). IF NOT EXISTS: databases made before this set
-- existed already hold the table from the service's own first migration.
CREATE TABLE IF NOT EXISTS idempotency_keys (
    client_id TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status INTEGER NOT NULL,
    response TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (client_id, idempotency_key)
);
