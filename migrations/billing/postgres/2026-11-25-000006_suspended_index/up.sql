-- The scheduler looks for suspended subscriptions with an end on every pass
-- (scheduler/store.rs, SUSPENDED_UNTIL): without an index it read every subscription,
-- 0.1 s each second with 100,000 of them.
CREATE INDEX subscriptions_suspended_idx ON subscriptions (suspension_end) WHERE status = 'suspended';
