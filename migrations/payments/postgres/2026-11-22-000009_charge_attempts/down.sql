DROP INDEX payments_charge_attempt_idx;
ALTER TABLE payments DROP COLUMN charge_attempt_uuid;
