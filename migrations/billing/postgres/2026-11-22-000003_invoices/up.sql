-- Invoices: one per charge date of a subscription (period_date; NULL for one made by hand,
-- so any number of those), and the attempts to charge each. The unique indexes make a
-- second invoice for a period, or a second pending attempt for an invoice, impossible, even
-- from schedulers racing on several replicas.
CREATE TABLE invoices (
    uuid TEXT PRIMARY KEY,
    subscription_uuid TEXT NOT NULL,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT NOT NULL,
    period_date TEXT,
    due_date BIGINT NOT NULL,
    status TEXT NOT NULL,
    status_reason TEXT NOT NULL,
    amount BIGINT NOT NULL,
    refunded_amount BIGINT NOT NULL,
    currency TEXT NOT NULL,
    next_attempt_date BIGINT,
    failed_payment_attempts INTEGER NOT NULL,
    is_manually_created BOOLEAN NOT NULL,
    custom_parameters TEXT NOT NULL,
    service_parameters TEXT NOT NULL,
    created BIGINT NOT NULL,
    updated BIGINT NOT NULL
);
CREATE UNIQUE INDEX invoices_period_idx ON invoices (subscription_uuid, period_date);
CREATE INDEX invoices_subscription_idx ON invoices (subscription_uuid, created);
CREATE INDEX invoices_retry_idx ON invoices (next_attempt_date) WHERE status = 'open';

CREATE TABLE charge_attempts (
    uuid TEXT PRIMARY KEY,
    invoice_uuid TEXT NOT NULL,
    subscription_uuid TEXT NOT NULL,
    status TEXT NOT NULL,
    status_reason TEXT,
    payment_uuid TEXT,
    created BIGINT NOT NULL,
    updated BIGINT NOT NULL
);
CREATE UNIQUE INDEX charge_attempts_one_pending_idx ON charge_attempts (invoice_uuid) WHERE status = 'pending';
CREATE INDEX charge_attempts_invoice_idx ON charge_attempts (invoice_uuid, created);
