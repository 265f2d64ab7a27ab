-- The outbox and inbox come from crates/events (PROBE includes its set).

-- What the probe consumer does with an event: one row per application, so a duplicate
-- application shows as a second row.
CREATE TABLE effects (
    id BIGSERIAL PRIMARY KEY,
    event_id TEXT NOT NULL,
    object_uuid TEXT NOT NULL,
    sequence BIGINT NOT NULL,
    applied_ms BIGINT NOT NULL
);
