-- What billing knows of payments' sources and supporters, from their events: enough to
-- check a subscription's references without asking payments.
CREATE TABLE payment_sources (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT NOT NULL,
    test_mode BOOLEAN NOT NULL,
    payment_method TEXT NOT NULL,
    payment_provider TEXT NOT NULL,
    status TEXT NOT NULL,
    updated_ms BIGINT NOT NULL
);

CREATE TABLE supporters (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    updated_ms BIGINT NOT NULL
);

-- Subscriptions. Dates a caller gives (YYYY-MM-DD) are kept as given; the instants shown
-- are computed in the subscription's zone. anchor_date is the first charge date named
-- intervals repeat (docs/billing.md).
CREATE TABLE subscriptions (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT NOT NULL,
    supporter_uuid TEXT,
    plan_uuid TEXT NOT NULL,
    payment_source_uuid TEXT NOT NULL,
    payment_provider TEXT NOT NULL,
    payment_method TEXT NOT NULL,
    test_mode BOOLEAN NOT NULL,
    currency TEXT NOT NULL,
    amount BIGINT NOT NULL,
    timezone TEXT NOT NULL,
    recurring_interval TEXT NOT NULL,
    anchor_date TEXT NOT NULL,
    status TEXT NOT NULL,
    next_due_date BIGINT,
    planned_effective_from TEXT,
    planned_since BIGINT,
    planned_end TEXT,
    ended_at BIGINT,
    suspension_start TEXT,
    suspension_end TEXT,
    consecutive_failed_invoices INTEGER NOT NULL,
    custom_parameters TEXT NOT NULL,
    service_parameters TEXT NOT NULL,
    created BIGINT NOT NULL,
    updated BIGINT NOT NULL
);
CREATE INDEX subscriptions_account_idx ON subscriptions (account_uuid, created);
-- The scheduler's question: which active subscriptions are due.
CREATE INDEX subscriptions_due_idx ON subscriptions (next_due_date) WHERE status IN ('active', 'suspended');
