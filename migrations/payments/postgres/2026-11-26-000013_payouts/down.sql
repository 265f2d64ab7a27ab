ALTER TABLE refunds DROP COLUMN payout_uuid;
DROP TABLE payment_settlements;
DROP TABLE payouts;
