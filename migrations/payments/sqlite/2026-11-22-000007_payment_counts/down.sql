DROP INDEX payments_account_status_idx;
DROP TRIGGER payments_counted_update;
DROP TRIGGER payments_counted_insert;
DROP TABLE payment_count_changes;
DROP TABLE payment_counts;
