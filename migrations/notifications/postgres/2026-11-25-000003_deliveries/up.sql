-- Deliveries (docs/webhooks.md). A task is one event owed to one endpoint, made in the
-- transaction that records the event in the inbox, so nothing is lost between the broker
-- and the sender. It stays `pending` until a try lands (`delivered`), the tries run out or
-- the endpoint answers 410 (`failed`), or the endpoint is gone or off when its turn comes
-- (`dropped`). A sender claims a task by moving due_ms past the try's lease: a sender that
-- stops mid-try leaves it to be claimed again when the lease ends.
CREATE TABLE delivery_tasks (
    uuid TEXT PRIMARY KEY,
    event_uuid TEXT NOT NULL,
    event_name TEXT NOT NULL,
    endpoint_uuid TEXT NOT NULL,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT,
    object_uuid TEXT NOT NULL,
    -- The envelope as delivered, the same on every try.
    body TEXT NOT NULL,
    state TEXT NOT NULL,
    -- Tries begun, and how many it may have (one more than those begun, on a redelivery).
    -- An answer counts only for the try last begun: one whose lease ran out is only logged.
    tries INTEGER NOT NULL,
    max_tries INTEGER NOT NULL,
    -- Unix milliseconds: when the next try is due, or the lease of the one in flight ends.
    due_ms BIGINT NOT NULL,
    created_ms BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL,
    UNIQUE (event_uuid, endpoint_uuid)
);
CREATE INDEX delivery_tasks_due_idx ON delivery_tasks (due_ms) WHERE state = 'pending';
-- Claims go endpoint by endpoint (tasks::endpoints_due), so one endpoint's backlog is never
-- read past to reach another's.
CREATE INDEX delivery_tasks_endpoint_due_idx ON delivery_tasks (endpoint_uuid, due_ms) WHERE state = 'pending';
CREATE INDEX delivery_tasks_updated_idx ON delivery_tasks (updated_ms) WHERE state <> 'pending';

-- The delivery log: one row per try, written when the try begins (so a try whose sender
-- stopped still shows) and completed with the answer.
CREATE TABLE webhook_responses (
    uuid TEXT PRIMARY KEY,
    task_uuid TEXT NOT NULL,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT,
    webhook_configuration_uuid TEXT NOT NULL,
    event_uuid TEXT NOT NULL,
    object_uuid TEXT NOT NULL,
    sent_at BIGINT NOT NULL,
    answered BOOLEAN NOT NULL,
    error BOOLEAN NOT NULL,
    status_code INTEGER NOT NULL,
    reason_phrase TEXT NOT NULL,
    error_message TEXT,
    response_time BIGINT NOT NULL,
    do_not_retry BOOLEAN NOT NULL,
    request_headers TEXT NOT NULL,
    request_body TEXT NOT NULL,
    response_headers TEXT NOT NULL,
    response_body TEXT NOT NULL
);
CREATE INDEX webhook_responses_organisation_idx ON webhook_responses (organisation_uuid, sent_at);
CREATE INDEX webhook_responses_endpoint_idx ON webhook_responses (webhook_configuration_uuid, sent_at);
CREATE INDEX webhook_responses_event_idx ON webhook_responses (event_uuid);
CREATE INDEX webhook_responses_sent_idx ON webhook_responses (sent_at);

-- Since when (Unix milliseconds) every try to the endpoint has failed; none after a success.
ALTER TABLE webhook_endpoints ADD COLUMN failing_since BIGINT;
