-- Domain events (crates/events): the outbox a service publishes from, and the inbox that
-- makes its consumers apply each event once. Every service's schema includes this set
-- (Migrations::includes). IF NOT EXISTS: databases made before this set existed already
-- hold both tables from the service's own first migration.
CREATE TABLE IF NOT EXISTS outbox (
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
CREATE INDEX IF NOT EXISTS outbox_pending_idx ON outbox (partition_no, seq) WHERE published_ms IS NULL;
CREATE INDEX IF NOT EXISTS outbox_published_idx ON outbox (published_ms) WHERE published_ms IS NOT NULL;

CREATE TABLE IF NOT EXISTS inbox (
    consumer TEXT NOT NULL,
    event_id TEXT NOT NULL,
    handled_ms BIGINT NOT NULL,
    PRIMARY KEY (consumer, event_id)
);
