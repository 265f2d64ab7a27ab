-- Refunds of a payment. The payment's refunded_amount is raised in the same transaction,
-- by a conditional update that can never take it above the payment's amount.
CREATE TABLE refunds (
    uuid TEXT PRIMARY KEY,
    payment_uuid TEXT NOT NULL REFERENCES payments (uuid),
    amount_value BIGINT NOT NULL,
    currency TEXT NOT NULL,
    status TEXT NOT NULL,
    created BIGINT NOT NULL
);
CREATE INDEX refunds_payment_idx ON refunds (payment_uuid, created);
