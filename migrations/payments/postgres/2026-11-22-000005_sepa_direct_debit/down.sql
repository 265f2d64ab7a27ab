DROP INDEX payments_end_to_end_idx;
ALTER TABLE payments DROP COLUMN mandate_reference;
ALTER TABLE payments DROP COLUMN end_to_end_id;
