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

-- What the probe consumer does with an event: one row per application, so a duplicate
-- application shows as a second row.
CREATE TABLE effects (
    id BIGSERIAL PRIMARY KEY,
    event_id TEXT NOT NULL,
    object_uuid TEXT NOT NULL,
    sequence BIGINT NOT NULL,
    applied_ms BIGINT NOT NULL
);
