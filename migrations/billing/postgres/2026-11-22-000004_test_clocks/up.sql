-- Test clocks: a test-mode subscription on one lives in the clock's time, which moves only
-- when advanced (docs/billing.md, "Test clocks"). owner is the organisation that made it.
CREATE TABLE test_clocks (
    uuid TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    frozen_time BIGINT NOT NULL,
    target_time BIGINT,
    status TEXT NOT NULL,
    created BIGINT NOT NULL,
    updated BIGINT NOT NULL
);
ALTER TABLE subscriptions ADD COLUMN test_clock_uuid TEXT;
CREATE INDEX subscriptions_test_clock_idx ON subscriptions (test_clock_uuid);
