-- Stored instruments that can be charged again. `provider_reference` is the provider's
-- handle on the instrument; card details are kept only masked, as on payments.
CREATE TABLE payment_sources (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT NOT NULL,
    created BIGINT NOT NULL,
    updated BIGINT NOT NULL,
    test_mode BOOLEAN NOT NULL,
    payment_method TEXT NOT NULL,
    profile TEXT NOT NULL,
    payment_provider TEXT NOT NULL,
    provider_reference TEXT NOT NULL,
    status TEXT NOT NULL,
    status_reason TEXT,
    payment_information TEXT NOT NULL,
    supporter_uuid TEXT,
    custom_parameters TEXT NOT NULL
);
CREATE INDEX payment_sources_account_idx ON payment_sources (account_uuid, created);
