-- Payment method profiles: which provider handles a method for an account. Every account
-- gets the test profiles when payments learns of it.
CREATE TABLE payment_method_profiles (
    uuid TEXT PRIMARY KEY,
    account_uuid TEXT NOT NULL,
    organisation_uuid TEXT NOT NULL,
    name TEXT NOT NULL,
    payment_method TEXT NOT NULL,
    test_mode BOOLEAN NOT NULL,
    provider TEXT NOT NULL,
    is_default BOOLEAN NOT NULL,
    created BIGINT NOT NULL,
    UNIQUE (account_uuid, name)
);
CREATE INDEX payment_method_profiles_organisation_idx ON payment_method_profiles (organisation_uuid);
