-- Disputes of payments charged through a provider outside the process: a donor's bank
-- taking the money back (Stripe's `charge.dispute.*` events; docs/payments.md, "Disputes").
-- One row per dispute as the provider names it, per connector account; `provider_updated`
-- is when the provider last changed it (its event's time), so a late event never moves it
-- back.
CREATE TABLE disputes (
    connector_account_uuid TEXT NOT NULL,
    provider_dispute_id TEXT NOT NULL,
    uuid TEXT NOT NULL UNIQUE,
    payment_uuid TEXT NOT NULL,
    amount_value BIGINT NOT NULL,
    currency TEXT NOT NULL,
    reason TEXT NOT NULL,
    status TEXT NOT NULL,
    created BIGINT NOT NULL,
    provider_updated BIGINT NOT NULL,
    PRIMARY KEY (connector_account_uuid, provider_dispute_id)
);
CREATE INDEX disputes_payment_idx ON disputes (payment_uuid);
-- A dispute names the provider's payment (Stripe's PaymentIntent), not Coffer's.
CREATE INDEX payments_provider_payment_idx ON payments (provider_payment_id)
    WHERE provider_payment_id IS NOT NULL;
