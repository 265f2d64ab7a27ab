-- The outbox is a queue: every row is written, then marked published moments later, so
-- the partial index the relay reads (outbox_pending_idx) fills with entries of rows that
-- no longer match, and each pass reads past them until a vacuum removes them. The
-- defaults wait for a fifth of the table to change; a burst of 100,000 events made each
-- pass 0.1 s. Vacuum after a small share changes, without pausing.
ALTER TABLE outbox SET (
    autovacuum_vacuum_scale_factor = 0.01,
    autovacuum_vacuum_insert_scale_factor = 0.05,
    autovacuum_analyze_scale_factor = 0.02,
    autovacuum_vacuum_cost_delay = 0
);
