-- A connector account's publishable key (Stripe's `pk_test_...` / `pk_live_...`): what the
-- donor's payment page hands the provider's browser script (docs/payments.md, "The payment
-- page"). It is public by design, so it is kept as it is, not sealed.
ALTER TABLE connector_accounts ADD COLUMN publishable_key TEXT;
