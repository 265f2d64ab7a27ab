-- Published rows are gone; nothing to restore.
SELECT 1;
