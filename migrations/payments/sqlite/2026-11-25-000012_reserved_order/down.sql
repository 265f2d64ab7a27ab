DROP INDEX payments_reserved_idx;
