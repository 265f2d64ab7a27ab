-- Delivery tasks and log rows are each written two or three times within seconds (made,
-- claimed, answered), so these tables gather dead rows far faster than PostgreSQL's
-- defaults (a vacuum after a fifth of the table has changed) clean them, and every claim
-- and record then reads past them. Vacuum and analyse them after a small share changes.
ALTER TABLE delivery_tasks SET (
    autovacuum_vacuum_scale_factor = 0.01,
    autovacuum_vacuum_insert_scale_factor = 0.05,
    autovacuum_analyze_scale_factor = 0.02,
    autovacuum_vacuum_cost_delay = 0
);
ALTER TABLE webhook_responses SET (
    autovacuum_vacuum_scale_factor = 0.02,
    autovacuum_analyze_scale_factor = 0.05,
    autovacuum_vacuum_cost_delay = 0
);
