DROP INDEX subscriptions_test_clock_idx;
ALTER TABLE subscriptions DROP COLUMN test_clock_uuid;
DROP TABLE test_clocks;
