ALTER TABLE outbox RESET (
    autovacuum_vacuum_scale_factor,
    autovacuum_vacuum_insert_scale_factor,
    autovacuum_analyze_scale_factor,
    autovacuum_vacuum_cost_delay
);
