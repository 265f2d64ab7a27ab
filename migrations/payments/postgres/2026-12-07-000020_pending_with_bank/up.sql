-- Payments pending with the bank at a provider outside the process (a SEPA direct debit
-- through Stripe): its answer said the bank decides, which takes days, and a notification
-- of the end may be lost, so a worker asks the provider, less often as the payment ages
-- (docs/payments.md, "Connecting Stripe"). `provider_asks` holds when it last asked, beside
-- the payment rather than in it (one row per such payment only). The index holds only the
-- payments so pending.
CREATE TABLE provider_asks (
    payment_uuid TEXT PRIMARY KEY,
    asked BIGINT NOT NULL
);
CREATE INDEX payments_with_bank_idx ON payments (charge_started)
    WHERE status = 'pending' AND charge_state = 'done' AND action IS NULL
        AND payment_provider <> 'coffer_test';
