-- Payouts: what the test provider pays an account for a day's succeeded card, TWINT and
-- PayPal payments, less its fees and the refunds made since the last payout
-- (docs/payments.md, "Payouts"). Amounts are minor units of `currency`.
CREATE TABLE payouts (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT NOT NULL,
    currency TEXT NOT NULL,
    gross_value BIGINT NOT NULL,
    fees_value BIGINT NOT NULL,
    refunded_value BIGINT NOT NULL,
    amount_value BIGINT NOT NULL,
    payment_count BIGINT NOT NULL,
    -- What the bank shows in the credit's remittance information.
    reference TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL,
    -- The day the payout was made (YYYY-MM-DD, UTC) and, once a statement shows it, the
    -- day the bank credited it.
    settlement_date TEXT NOT NULL,
    value_date TEXT,
    created BIGINT NOT NULL,
    updated BIGINT NOT NULL
);
CREATE INDEX payouts_account_idx ON payouts (account_uuid, created);

-- How a payment reached the bank: in which payout, for what fee, the day the bank
-- credited it (a payout's value date, or a direct debit's from its notification), and
-- why a direct debit came back (the ISO return code, such as MD06). A row
-- of its own rather than columns of payments, which has diesel's 32 columns already.
-- The primary key is what keeps a payment in one payout at most.
CREATE TABLE payment_settlements (
    payment_uuid TEXT PRIMARY KEY REFERENCES payments (uuid),
    payout_uuid TEXT REFERENCES payouts (uuid),
    fee_value BIGINT,
    value_date TEXT,
    return_reason TEXT
);
CREATE INDEX payment_settlements_payout_idx ON payment_settlements (payout_uuid);

ALTER TABLE refunds ADD COLUMN payout_uuid TEXT REFERENCES payouts (uuid);
