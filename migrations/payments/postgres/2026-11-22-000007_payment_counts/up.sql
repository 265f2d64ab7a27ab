-- How many payments there are per organisation, account, mode, status, method and
-- currency, so that searches filtering and grouping only on those answer without counting
-- rows (docs/payments.md, "Search"). A trigger appends +1/-1 changes in the payment's own
-- transaction; appending never waits on another payment, unlike a shared counter row.
-- The service folds the changes into payment_counts every second; a search adds both
-- tables up in one statement, so it never sees a change twice or not at all.
CREATE TABLE payment_counts (
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT NOT NULL,
    test_mode BOOLEAN NOT NULL,
    status TEXT NOT NULL,
    payment_method TEXT NOT NULL,
    currency TEXT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (organisation_uuid, account_uuid, test_mode, status, payment_method, currency)
);

CREATE TABLE payment_count_changes (
    id BIGSERIAL PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT NOT NULL,
    test_mode BOOLEAN NOT NULL,
    status TEXT NOT NULL,
    payment_method TEXT NOT NULL,
    currency TEXT NOT NULL,
    n BIGINT NOT NULL
);

CREATE FUNCTION payment_count_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        INSERT INTO payment_count_changes
            (organisation_uuid, account_uuid, test_mode, status, payment_method, currency, n)
        VALUES (OLD.organisation_uuid, OLD.account_uuid, OLD.test_mode, OLD.status,
            OLD.payment_method, OLD.currency, -1);
    END IF;
    INSERT INTO payment_count_changes
        (organisation_uuid, account_uuid, test_mode, status, payment_method, currency, n)
    VALUES (NEW.organisation_uuid, NEW.account_uuid, NEW.test_mode, NEW.status,
        NEW.payment_method, NEW.currency, 1);
    RETURN NULL;
END
$$;

CREATE TRIGGER payments_counted_insert AFTER INSERT ON payments
    FOR EACH ROW EXECUTE FUNCTION payment_count_change();
CREATE TRIGGER payments_counted_update AFTER UPDATE ON payments
    FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status
        OR OLD.organisation_uuid IS DISTINCT FROM NEW.organisation_uuid
        OR OLD.account_uuid IS DISTINCT FROM NEW.account_uuid
        OR OLD.test_mode IS DISTINCT FROM NEW.test_mode
        OR OLD.payment_method IS DISTINCT FROM NEW.payment_method
        OR OLD.currency IS DISTINCT FROM NEW.currency)
    EXECUTE FUNCTION payment_count_change();

INSERT INTO payment_counts
    (organisation_uuid, account_uuid, test_mode, status, payment_method, currency, n)
SELECT organisation_uuid, account_uuid, test_mode, status, payment_method, currency, COUNT(*)
FROM payments
GROUP BY organisation_uuid, account_uuid, test_mode, status, payment_method, currency;

-- The first page of a search filtered on account and status, newest first.
CREATE INDEX payments_account_status_idx ON payments (account_uuid, status, created);
