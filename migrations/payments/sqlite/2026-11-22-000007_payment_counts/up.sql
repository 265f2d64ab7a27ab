-- How many payments there are per organisation, account, mode, status, method and
-- currency; see the PostgreSQL migration for why changes are appended and folded later.
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
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT NOT NULL,
    test_mode BOOLEAN NOT NULL,
    status TEXT NOT NULL,
    payment_method TEXT NOT NULL,
    currency TEXT NOT NULL,
    n BIGINT NOT NULL
);

CREATE TRIGGER payments_counted_insert AFTER INSERT ON payments
BEGIN
    INSERT INTO payment_count_changes
        (organisation_uuid, account_uuid, test_mode, status, payment_method, currency, n)
    VALUES (NEW.organisation_uuid, NEW.account_uuid, NEW.test_mode, NEW.status,
        NEW.payment_method, NEW.currency, 1);
END;

CREATE TRIGGER payments_counted_update AFTER UPDATE ON payments
    WHEN OLD.status IS NOT NEW.status
        OR OLD.organisation_uuid IS NOT NEW.organisation_uuid
        OR OLD.account_uuid IS NOT NEW.account_uuid
        OR OLD.test_mode IS NOT NEW.test_mode
        OR OLD.payment_method IS NOT NEW.payment_method
        OR OLD.currency IS NOT NEW.currency
BEGIN
    INSERT INTO payment_count_changes
        (organisation_uuid, account_uuid, test_mode, status, payment_method, currency, n)
    VALUES (OLD.organisation_uuid, OLD.account_uuid, OLD.test_mode, OLD.status,
        OLD.payment_method, OLD.currency, -1);
    INSERT INTO payment_count_changes
        (organisation_uuid, account_uuid, test_mode, status, payment_method, currency, n)
    VALUES (NEW.organisation_uuid, NEW.account_uuid, NEW.test_mode, NEW.status,
        NEW.payment_method, NEW.currency, 1);
END;

INSERT INTO payment_counts
    (organisation_uuid, account_uuid, test_mode, status, payment_method, currency, n)
SELECT organisation_uuid, account_uuid, test_mode, status, payment_method, currency, COUNT(*)
FROM payments
GROUP BY organisation_uuid, account_uuid, test_mode, status, payment_method, currency;

CREATE INDEX payments_account_status_idx ON payments (account_uuid, status, created);
