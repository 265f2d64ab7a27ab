-- The charge sender takes reserved payments oldest first (payments/store.rs, `reserved`):
-- in this index's order, instead of sorting every reserved payment on each pass (36 ms
-- with 20,000 waiting).
CREATE INDEX payments_reserved_idx ON payments (created) WHERE charge_state = 'reserved';
