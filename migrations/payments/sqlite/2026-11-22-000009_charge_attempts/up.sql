-- A payment made for one of billing's charge attempts says which, so billing can match the
-- result to its invoice.
ALTER TABLE payments ADD COLUMN charge_attempt_uuid TEXT;
CREATE UNIQUE INDEX payments_charge_attempt_idx ON payments (charge_attempt_uuid);
