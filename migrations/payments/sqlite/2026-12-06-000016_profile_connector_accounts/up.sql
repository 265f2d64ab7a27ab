-- A profile served by a connector account (docs/payments.md, "Connecting Stripe") names
-- it; the test provider's profiles name none. A profile takes its account's mode, so test
-- and live profiles of one method stand side by side, each mode with its own default.
ALTER TABLE payment_method_profiles ADD COLUMN connector_account_uuid TEXT;

-- One default per account, method and mode, whoever sets profiles at the same time.
CREATE UNIQUE INDEX payment_method_profiles_one_default
    ON payment_method_profiles (account_uuid, payment_method, test_mode) WHERE is_default;
