-- Payments rolled up per group and UTC day; see the PostgreSQL migration. SQLite's
-- triggers run per row, so each payment appends its own change.
CREATE TABLE payment_rollups (
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT NOT NULL,
    day BIGINT NOT NULL,
    test_mode BOOLEAN NOT NULL,
    status TEXT NOT NULL,
    payment_method TEXT NOT NULL,
    currency TEXT NOT NULL,
    n BIGINT NOT NULL,
    amount_high BIGINT NOT NULL,
    amount_low BIGINT NOT NULL,
    quarters BLOB NOT NULL,
    PRIMARY KEY (organisation_uuid, account_uuid, day, test_mode, status, payment_method, currency)
);

CREATE TABLE payment_rollup_changes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT NOT NULL,
    test_mode BOOLEAN NOT NULL,
    status TEXT NOT NULL,
    payment_method TEXT NOT NULL,
    currency TEXT NOT NULL,
    quarter BIGINT NOT NULL,
    n BIGINT NOT NULL,
    amount_high BIGINT NOT NULL,
    amount_low BIGINT NOT NULL
);

-- created over 900 rounded down, written out: SQLite's division truncates toward zero,
-- which differs from rounding down before 1970.
CREATE TRIGGER payments_rolled_up_insert AFTER INSERT ON payments
BEGIN
    INSERT INTO payment_rollup_changes (organisation_uuid, account_uuid, test_mode, status,
        payment_method, currency, quarter, n, amount_high, amount_low)
    VALUES (NEW.organisation_uuid, NEW.account_uuid, NEW.test_mode, NEW.status,
        NEW.payment_method, NEW.currency, (NEW.created - ((NEW.created % 900) + 900) % 900) / 900, 1,
        NEW.amount_value / 1000000000, NEW.amount_value % 1000000000);
END;

CREATE TRIGGER payments_rolled_up_update AFTER UPDATE ON payments
    WHEN OLD.status IS NOT NEW.status
        OR OLD.organisation_uuid IS NOT NEW.organisation_uuid
        OR OLD.account_uuid IS NOT NEW.account_uuid
        OR OLD.test_mode IS NOT NEW.test_mode
        OR OLD.payment_method IS NOT NEW.payment_method
        OR OLD.currency IS NOT NEW.currency
        OR OLD.created IS NOT NEW.created
        OR OLD.amount_value IS NOT NEW.amount_value
BEGIN
    INSERT INTO payment_rollup_changes (organisation_uuid, account_uuid, test_mode, status,
        payment_method, currency, quarter, n, amount_high, amount_low)
    VALUES (OLD.organisation_uuid, OLD.account_uuid, OLD.test_mode, OLD.status,
        OLD.payment_method, OLD.currency, (OLD.created - ((OLD.created % 900) + 900) % 900) / 900, -1,
        -(OLD.amount_value / 1000000000), -(OLD.amount_value % 1000000000));
    INSERT INTO payment_rollup_changes (organisation_uuid, account_uuid, test_mode, status,
        payment_method, currency, quarter, n, amount_high, amount_low)
    VALUES (NEW.organisation_uuid, NEW.account_uuid, NEW.test_mode, NEW.status,
        NEW.payment_method, NEW.currency, (NEW.created - ((NEW.created % 900) + 900) % 900) / 900, 1,
        NEW.amount_value / 1000000000, NEW.amount_value % 1000000000);
END;

INSERT INTO payment_rollup_changes (organisation_uuid, account_uuid, test_mode, status,
    payment_method, currency, quarter, n, amount_high, amount_low)
SELECT organisation_uuid, account_uuid, test_mode, status, payment_method, currency,
    (created - ((created % 900) + 900) % 900) / 900, COUNT(*),
    SUM(amount_value / 1000000000), SUM(amount_value % 1000000000)
FROM payments
GROUP BY organisation_uuid, account_uuid, test_mode, status, payment_method, currency,
    (created - ((created % 900) + 900) % 900) / 900;

-- Payments per value of each custom parameter; see the PostgreSQL migration. A value is
-- counted as the search reads it: json_extract's, cast to text.
CREATE TABLE payment_parameter_counts (
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    test_mode BOOLEAN NOT NULL,
    status TEXT NOT NULL,
    payment_method TEXT NOT NULL,
    currency TEXT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (organisation_uuid, account_uuid, key, value, test_mode, status, payment_method, currency)
);

CREATE TABLE payment_parameter_changes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    test_mode BOOLEAN NOT NULL,
    status TEXT NOT NULL,
    payment_method TEXT NOT NULL,
    currency TEXT NOT NULL,
    n BIGINT NOT NULL
);

CREATE TABLE payment_parameter_overflow (
    organisation_uuid TEXT NOT NULL,
    key TEXT NOT NULL
);
CREATE INDEX payment_parameter_overflow_idx ON payment_parameter_overflow (organisation_uuid, key);

CREATE TRIGGER payments_parameters_insert AFTER INSERT ON payments
BEGIN
    INSERT INTO payment_parameter_overflow (organisation_uuid, key)
    SELECT DISTINCT NEW.organisation_uuid, p.key
    FROM json_each(CASE WHEN json_valid(NEW.custom_parameters)
        AND json_type(NEW.custom_parameters) = 'object' THEN NEW.custom_parameters ELSE '{}' END) AS p
    WHERE p.type <> 'null' AND length(p.key) BETWEEN 1 AND 64
        AND p.key NOT GLOB '*[^A-Za-z0-9_-]*' AND length(CAST(p.value AS BLOB)) > 200
        AND NOT EXISTS (SELECT 1 FROM payment_parameter_overflow AS f
            WHERE f.organisation_uuid = NEW.organisation_uuid AND f.key = p.key);
    INSERT INTO payment_parameter_changes (organisation_uuid, account_uuid, key, value,
        test_mode, status, payment_method, currency, n)
    SELECT NEW.organisation_uuid, NEW.account_uuid, p.key, CAST(p.value AS TEXT), NEW.test_mode,
        NEW.status, NEW.payment_method, NEW.currency, 1
    FROM json_each(CASE WHEN json_valid(NEW.custom_parameters)
        AND json_type(NEW.custom_parameters) = 'object' THEN NEW.custom_parameters ELSE '{}' END) AS p
    WHERE p.type <> 'null' AND length(p.key) BETWEEN 1 AND 64
        AND p.key NOT GLOB '*[^A-Za-z0-9_-]*' AND length(CAST(p.value AS BLOB)) <= 200;
END;

CREATE TRIGGER payments_parameters_update AFTER UPDATE ON payments
    WHEN OLD.status IS NOT NEW.status
        OR OLD.organisation_uuid IS NOT NEW.organisation_uuid
        OR OLD.account_uuid IS NOT NEW.account_uuid
        OR OLD.test_mode IS NOT NEW.test_mode
        OR OLD.payment_method IS NOT NEW.payment_method
        OR OLD.currency IS NOT NEW.currency
        OR OLD.custom_parameters IS NOT NEW.custom_parameters
BEGIN
    INSERT INTO payment_parameter_overflow (organisation_uuid, key)
    SELECT DISTINCT NEW.organisation_uuid, p.key
    FROM json_each(CASE WHEN json_valid(NEW.custom_parameters)
        AND json_type(NEW.custom_parameters) = 'object' THEN NEW.custom_parameters ELSE '{}' END) AS p
    WHERE p.type <> 'null' AND length(p.key) BETWEEN 1 AND 64
        AND p.key NOT GLOB '*[^A-Za-z0-9_-]*' AND length(CAST(p.value AS BLOB)) > 200
        AND NOT EXISTS (SELECT 1 FROM payment_parameter_overflow AS f
            WHERE f.organisation_uuid = NEW.organisation_uuid AND f.key = p.key);
    INSERT INTO payment_parameter_changes (organisation_uuid, account_uuid, key, value,
        test_mode, status, payment_method, currency, n)
    SELECT OLD.organisation_uuid, OLD.account_uuid, p.key, CAST(p.value AS TEXT), OLD.test_mode,
        OLD.status, OLD.payment_method, OLD.currency, -1
    FROM json_each(CASE WHEN json_valid(OLD.custom_parameters)
        AND json_type(OLD.custom_parameters) = 'object' THEN OLD.custom_parameters ELSE '{}' END) AS p
    WHERE p.type <> 'null' AND length(p.key) BETWEEN 1 AND 64
        AND p.key NOT GLOB '*[^A-Za-z0-9_-]*' AND length(CAST(p.value AS BLOB)) <= 200;
    INSERT INTO payment_parameter_changes (organisation_uuid, account_uuid, key, value,
        test_mode, status, payment_method, currency, n)
    SELECT NEW.organisation_uuid, NEW.account_uuid, p.key, CAST(p.value AS TEXT), NEW.test_mode,
        NEW.status, NEW.payment_method, NEW.currency, 1
    FROM json_each(CASE WHEN json_valid(NEW.custom_parameters)
        AND json_type(NEW.custom_parameters) = 'object' THEN NEW.custom_parameters ELSE '{}' END) AS p
    WHERE p.type <> 'null' AND length(p.key) BETWEEN 1 AND 64
        AND p.key NOT GLOB '*[^A-Za-z0-9_-]*' AND length(CAST(p.value AS BLOB)) <= 200;
END;

INSERT INTO payment_parameter_overflow (organisation_uuid, key)
SELECT DISTINCT r.organisation_uuid, p.key
FROM payments AS r, json_each(CASE WHEN json_valid(r.custom_parameters)
        AND json_type(r.custom_parameters) = 'object' THEN r.custom_parameters ELSE '{}' END) AS p
WHERE p.type <> 'null' AND length(p.key) BETWEEN 1 AND 64
        AND p.key NOT GLOB '*[^A-Za-z0-9_-]*' AND length(CAST(p.value AS BLOB)) > 200
        AND NOT EXISTS (SELECT 1 FROM payment_parameter_overflow AS f
            WHERE f.organisation_uuid = r.organisation_uuid AND f.key = p.key);
INSERT INTO payment_parameter_changes (organisation_uuid, account_uuid, key, value,
    test_mode, status, payment_method, currency, n)
SELECT organisation_uuid, account_uuid, key, value, test_mode, status, payment_method,
    currency, COUNT(*)
FROM (
    SELECT r.organisation_uuid, r.account_uuid, p.key, CAST(p.value AS TEXT) AS value,
        r.test_mode, r.status, r.payment_method, r.currency
    FROM payments AS r, json_each(CASE WHEN json_valid(r.custom_parameters)
        AND json_type(r.custom_parameters) = 'object' THEN r.custom_parameters ELSE '{}' END) AS p
    WHERE p.type <> 'null' AND length(p.key) BETWEEN 1 AND 64
        AND p.key NOT GLOB '*[^A-Za-z0-9_-]*' AND length(CAST(p.value AS BLOB)) <= 200
) AS each_parameter
GROUP BY organisation_uuid, account_uuid, key, value, test_mode, status, payment_method,
    currency;

CREATE INDEX payments_account_amount_idx ON payments (account_uuid, amount_value, uuid);
-- Newest first, the default order, is created and then uuid: with uuid in the index too a
-- page of hits is read along it instead of sorting every match.
DROP INDEX payments_account_idx;
CREATE INDEX payments_account_idx ON payments (account_uuid, created, uuid);
DROP INDEX payments_organisation_idx;
CREATE INDEX payments_organisation_idx ON payments (organisation_uuid, created, uuid);
CREATE INDEX payments_account_status_amount_idx ON payments (account_uuid, status, amount_value);
