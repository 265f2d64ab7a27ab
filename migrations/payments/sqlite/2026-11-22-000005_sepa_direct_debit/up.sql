-- SEPA direct debits: the EndToEndId of the collection (how the bank file names it back)
-- and the mandate it is collected under.
ALTER TABLE payments ADD COLUMN end_to_end_id TEXT;
ALTER TABLE payments ADD COLUMN mandate_reference TEXT;
CREATE UNIQUE INDEX payments_end_to_end_idx ON payments (end_to_end_id);
