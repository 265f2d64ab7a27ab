-- The relay now deletes a row in the transaction that publishes it, and nothing purges
-- rows any more: rows published (and marked) before that change are deleted here once.
DELETE FROM outbox WHERE published_ms IS NOT NULL;
