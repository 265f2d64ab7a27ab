-- Payments rolled up per organisation, account, mode, status, method, currency and UTC
-- day, with their count, the sum of their amounts and their count per quarter hour of the
-- day (docs/decisions/search-rollups.md): searches that filter only on those columns and
-- on created answer a histogram, stats or a total from a row per day instead of a row
-- per payment. As with payment_counts, a trigger appends each statement's changes (per
-- quarter hour) and the service folds them; a search reads both in one snapshot.
CREATE TABLE payment_rollups (
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT NOT NULL,
    day BIGINT NOT NULL,
    test_mode BOOLEAN NOT NULL,
    status TEXT NOT NULL,
    payment_method TEXT NOT NULL,
    currency TEXT NOT NULL,
    n BIGINT NOT NULL,
    -- The sum of the amounts in two parts, whole billions and the rest (the amount over
    -- and modulo 1,000,000,000, each summed): rows may hold any BIGINT, and their sum
    -- would overflow one.
    amount_high BIGINT NOT NULL,
    amount_low BIGINT NOT NULL,
    -- 96 counts, one per quarter hour, each an unsigned LEB128 number.
    quarters BYTEA NOT NULL,
    PRIMARY KEY (organisation_uuid, account_uuid, day, test_mode, status, payment_method, currency)
);

CREATE TABLE payment_rollup_changes (
    id BIGSERIAL PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT NOT NULL,
    test_mode BOOLEAN NOT NULL,
    status TEXT NOT NULL,
    payment_method TEXT NOT NULL,
    currency TEXT NOT NULL,
    -- created over 900, rounded down.
    quarter BIGINT NOT NULL,
    n BIGINT NOT NULL,
    amount_high BIGINT NOT NULL,
    amount_low BIGINT NOT NULL
);

CREATE FUNCTION payment_rollups_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO payment_rollup_changes (organisation_uuid, account_uuid, test_mode, status,
        payment_method, currency, quarter, n, amount_high, amount_low)
    SELECT organisation_uuid, account_uuid, test_mode, status, payment_method, currency,
        FLOOR(created / 900.0)::BIGINT, COUNT(*), SUM(amount_value / 1000000000)::BIGINT,
        SUM(amount_value % 1000000000)::BIGINT
    FROM new_rows
    GROUP BY organisation_uuid, account_uuid, test_mode, status, payment_method, currency,
        FLOOR(created / 900.0)::BIGINT;
    RETURN NULL;
END
$$;

-- -1 and the amount taken off for each row as it was, +1 and the amount for each row as
-- it is; an update that moved nothing between groups or days appends nothing.
CREATE FUNCTION payment_rollups_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO payment_rollup_changes (organisation_uuid, account_uuid, test_mode, status,
        payment_method, currency, quarter, n, amount_high, amount_low)
    SELECT organisation_uuid, account_uuid, test_mode, status, payment_method, currency,
        quarter, SUM(n)::BIGINT, SUM(high)::BIGINT, SUM(low)::BIGINT
    FROM (
        SELECT organisation_uuid, account_uuid, test_mode, status, payment_method, currency,
            FLOOR(created / 900.0)::BIGINT AS quarter, -1 AS n,
            -(amount_value / 1000000000) AS high, -(amount_value % 1000000000) AS low
        FROM old_rows
        UNION ALL
        SELECT organisation_uuid, account_uuid, test_mode, status, payment_method, currency,
            FLOOR(created / 900.0)::BIGINT AS quarter, 1 AS n,
            amount_value / 1000000000 AS high, amount_value % 1000000000 AS low
        FROM new_rows
    ) AS moved
    GROUP BY organisation_uuid, account_uuid, test_mode, status, payment_method, currency,
        quarter
    HAVING SUM(n) <> 0 OR SUM(high) <> 0 OR SUM(low) <> 0;
    RETURN NULL;
END
$$;

CREATE TRIGGER payments_rolled_up_insert AFTER INSERT ON payments
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION payment_rollups_inserted();
CREATE TRIGGER payments_rolled_up_update AFTER UPDATE ON payments
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION payment_rollups_updated();

-- The payments already there, as changes the service folds once it runs.
INSERT INTO payment_rollup_changes (organisation_uuid, account_uuid, test_mode, status,
    payment_method, currency, quarter, n, amount_high, amount_low)
SELECT organisation_uuid, account_uuid, test_mode, status, payment_method, currency,
    FLOOR(created / 900.0)::BIGINT, COUNT(*), SUM(amount_value / 1000000000)::BIGINT,
    SUM(amount_value % 1000000000)::BIGINT
FROM payments
GROUP BY organisation_uuid, account_uuid, test_mode, status, payment_method, currency,
    FLOOR(created / 900.0)::BIGINT;

-- Payments per value of each custom parameter, per the same groups (no day): a term
-- aggregation on a parameter, or the total of a match on one, adds these up. A key a
-- search cannot name (query::custom_parameter: letters, digits, _ and -, at most 64) is
-- not counted. A value longer than 200 bytes is not counted either (an index entry has a
-- bound); its key is noted in payment_parameter_overflow instead, and searches on that key
-- count rows. JSON null is not a value: a term aggregation's null bucket is the payments
-- the other values leave.
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
    id BIGSERIAL PRIMARY KEY,
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

-- Appended once per organisation and key (a race may append twice, which does no harm),
-- without a unique key: a unique insert would wait on another payment's transaction.
-- Key '*' stands for every key of the organisation: a payment whose parameters jsonb
-- cannot read (a NUL character, "\u0000", which JSON allows) is not counted at all.
CREATE TABLE payment_parameter_overflow (
    organisation_uuid TEXT NOT NULL,
    key TEXT NOT NULL
);
CREATE INDEX payment_parameter_overflow_idx ON payment_parameter_overflow (organisation_uuid, key);

-- Each payment's searchable parameters, with +1 or -1.
CREATE FUNCTION payment_parameters_of(custom_parameters TEXT) RETURNS TABLE (key TEXT, value TEXT)
LANGUAGE sql IMMUTABLE AS $$
    SELECT p.key, p.value
    FROM jsonb_each_text(CASE
        WHEN strpos(custom_parameters, '\u0000') > 0 THEN '{}'::jsonb
        WHEN jsonb_typeof(custom_parameters::jsonb) = 'object' THEN custom_parameters::jsonb
        ELSE '{}'::jsonb END) AS p
    WHERE p.key ~ '^[A-Za-z0-9_-]{1,64}$' AND p.value IS NOT NULL
$$;

CREATE FUNCTION payment_parameters_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO payment_parameter_overflow (organisation_uuid, key)
    SELECT DISTINCT o.organisation_uuid, o.key FROM (
        SELECT r.organisation_uuid, p.key
        FROM new_rows AS r, payment_parameters_of(r.custom_parameters) AS p
        WHERE octet_length(p.value) > 200
        UNION ALL
        SELECT r.organisation_uuid, '*' FROM new_rows AS r
        WHERE strpos(r.custom_parameters, '\u0000') > 0
    ) AS o
    WHERE NOT EXISTS (SELECT 1 FROM payment_parameter_overflow AS f
        WHERE f.organisation_uuid = o.organisation_uuid AND f.key = o.key);
    INSERT INTO payment_parameter_changes (organisation_uuid, account_uuid, key, value,
        test_mode, status, payment_method, currency, n)
    SELECT r.organisation_uuid, r.account_uuid, p.key, p.value, r.test_mode, r.status,
        r.payment_method, r.currency, COUNT(*)
    FROM new_rows AS r, payment_parameters_of(r.custom_parameters) AS p
    WHERE octet_length(p.value) <= 200
    GROUP BY r.organisation_uuid, r.account_uuid, p.key, p.value, r.test_mode, r.status,
        r.payment_method, r.currency;
    RETURN NULL;
END
$$;

CREATE FUNCTION payment_parameters_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO payment_parameter_overflow (organisation_uuid, key)
    SELECT DISTINCT o.organisation_uuid, o.key FROM (
        SELECT r.organisation_uuid, p.key
        FROM new_rows AS r, payment_parameters_of(r.custom_parameters) AS p
        WHERE octet_length(p.value) > 200
        UNION ALL
        SELECT r.organisation_uuid, '*' FROM new_rows AS r
        WHERE strpos(r.custom_parameters, '\u0000') > 0
    ) AS o
    WHERE NOT EXISTS (SELECT 1 FROM payment_parameter_overflow AS f
        WHERE f.organisation_uuid = o.organisation_uuid AND f.key = o.key);
    INSERT INTO payment_parameter_changes (organisation_uuid, account_uuid, key, value,
        test_mode, status, payment_method, currency, n)
    SELECT organisation_uuid, account_uuid, key, value, test_mode, status, payment_method,
        currency, SUM(n)::BIGINT
    FROM (
        SELECT r.organisation_uuid, r.account_uuid, p.key, p.value, r.test_mode, r.status,
            r.payment_method, r.currency, -1 AS n
        FROM old_rows AS r, payment_parameters_of(r.custom_parameters) AS p
        WHERE octet_length(p.value) <= 200
        UNION ALL
        SELECT r.organisation_uuid, r.account_uuid, p.key, p.value, r.test_mode, r.status,
            r.payment_method, r.currency, 1 AS n
        FROM new_rows AS r, payment_parameters_of(r.custom_parameters) AS p
        WHERE octet_length(p.value) <= 200
    ) AS moved
    GROUP BY organisation_uuid, account_uuid, key, value, test_mode, status, payment_method,
        currency
    HAVING SUM(n) <> 0;
    RETURN NULL;
END
$$;

CREATE TRIGGER payments_parameters_insert AFTER INSERT ON payments
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION payment_parameters_inserted();
CREATE TRIGGER payments_parameters_update AFTER UPDATE ON payments
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION payment_parameters_updated();

INSERT INTO payment_parameter_overflow (organisation_uuid, key)
SELECT DISTINCT r.organisation_uuid, p.key
FROM payments AS r, payment_parameters_of(r.custom_parameters) AS p
WHERE octet_length(p.value) > 200
UNION
SELECT DISTINCT r.organisation_uuid, '*' FROM payments AS r
WHERE strpos(r.custom_parameters, '\u0000') > 0;
INSERT INTO payment_parameter_changes (organisation_uuid, account_uuid, key, value,
    test_mode, status, payment_method, currency, n)
SELECT r.organisation_uuid, r.account_uuid, p.key, p.value, r.test_mode, r.status,
    r.payment_method, r.currency, COUNT(*)
FROM payments AS r, payment_parameters_of(r.custom_parameters) AS p
WHERE octet_length(p.value) <= 200
GROUP BY r.organisation_uuid, r.account_uuid, p.key, p.value, r.test_mode, r.status,
    r.payment_method, r.currency;

-- Hits sorted by amount (the largest gifts of a period), and a stats aggregation's least
-- and most, found along an index instead of sorting an account's payments.
CREATE INDEX payments_account_amount_idx ON payments (account_uuid, amount_value, uuid);
-- Newest first, the default order, is created and then uuid: with uuid in the index too a
-- page of hits is read along it instead of sorting every match.
DROP INDEX payments_account_idx;
CREATE INDEX payments_account_idx ON payments (account_uuid, created, uuid);
DROP INDEX payments_organisation_idx;
CREATE INDEX payments_organisation_idx ON payments (organisation_uuid, created, uuid);
CREATE INDEX payments_account_status_amount_idx ON payments (account_uuid, status, amount_value);
