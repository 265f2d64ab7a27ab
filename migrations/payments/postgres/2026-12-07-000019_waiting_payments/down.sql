DROP INDEX payments_waiting_idx;
