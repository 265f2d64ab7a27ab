-- The payment counts' changes appended once per statement instead of once per row
-- (docs/payments.md, "Search"). Payments are inserted and updated in batches (one insert
-- for a batch's intents, one update for its outcomes), and the row-level trigger ran its
-- function and an insert or two for every payment of the batch. A statement's changes are
-- now summed per group: -1 for each row as it was, +1 for each row as it is, and groups
-- that come to nothing (an update that moved no payment between groups) append nothing.
DROP TRIGGER payments_counted_insert ON payments;
DROP TRIGGER payments_counted_update ON payments;
DROP FUNCTION payment_count_change();

CREATE FUNCTION payment_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO payment_count_changes
        (organisation_uuid, account_uuid, test_mode, status, payment_method, currency, n)
    SELECT organisation_uuid, account_uuid, test_mode, status, payment_method, currency, COUNT(*)
    FROM new_rows
    GROUP BY organisation_uuid, account_uuid, test_mode, status, payment_method, currency;
    RETURN NULL;
END
$$;

CREATE FUNCTION payment_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO payment_count_changes
        (organisation_uuid, account_uuid, test_mode, status, payment_method, currency, n)
    SELECT organisation_uuid, account_uuid, test_mode, status, payment_method, currency,
        SUM(n)::BIGINT
    FROM (
        SELECT organisation_uuid, account_uuid, test_mode, status, payment_method, currency,
            -1 AS n
        FROM old_rows
        UNION ALL
        SELECT organisation_uuid, account_uuid, test_mode, status, payment_method, currency,
            1 AS n
        FROM new_rows
    ) AS moved
    GROUP BY organisation_uuid, account_uuid, test_mode, status, payment_method, currency
    HAVING SUM(n) <> 0;
    RETURN NULL;
END
$$;

CREATE TRIGGER payments_counted_insert AFTER INSERT ON payments
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION payment_counts_inserted();
CREATE TRIGGER payments_counted_update AFTER UPDATE ON payments
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION payment_counts_updated();
