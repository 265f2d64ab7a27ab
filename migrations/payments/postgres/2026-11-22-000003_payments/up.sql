-- Payments. Amounts are integers in the currency's minor unit. Card details are kept only
-- masked (brand, last4, expiry, keyed fingerprint), in payment_information.
CREATE TABLE payments (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT NOT NULL,
    created BIGINT NOT NULL,
    updated BIGINT NOT NULL,
    test_mode BOOLEAN NOT NULL,
    payment_method TEXT NOT NULL,
    profile TEXT NOT NULL,
    payment_provider TEXT NOT NULL,
    provider_payment_id TEXT,
    status TEXT NOT NULL,
    status_reason TEXT,
    amount_value BIGINT NOT NULL,
    currency TEXT NOT NULL,
    refunded_amount BIGINT NOT NULL,
    supporter_uuid TEXT,
    supporter TEXT,
    payment_information TEXT NOT NULL,
    created_payment_source_uuid TEXT,
    subscription TEXT,
    subscription_uuid TEXT,
    custom_parameters TEXT NOT NULL,
    locale TEXT,
    return_url TEXT,
    action TEXT,
    cancel_reason TEXT
);
CREATE INDEX payments_account_idx ON payments (account_uuid, created);
CREATE INDEX payments_organisation_idx ON payments (organisation_uuid, created);
