DROP TABLE test_psp_ledger;
DROP INDEX refunds_charge_state_idx;
ALTER TABLE refunds DROP COLUMN status_reason;
ALTER TABLE refunds DROP COLUMN charge_started;
ALTER TABLE refunds DROP COLUMN charge_state;
DROP INDEX payments_charge_state_idx;
ALTER TABLE payments DROP COLUMN payment_source_uuid;
ALTER TABLE payments DROP COLUMN charge_started;
ALTER TABLE payments DROP COLUMN charge_state;
