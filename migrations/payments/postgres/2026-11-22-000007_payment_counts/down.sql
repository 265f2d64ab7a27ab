DROP INDEX payments_account_status_idx;
DROP TRIGGER payments_counted_update ON payments;
DROP TRIGGER payments_counted_insert ON payments;
DROP FUNCTION payment_count_change();
DROP TABLE payment_count_changes;
DROP TABLE payment_counts;
