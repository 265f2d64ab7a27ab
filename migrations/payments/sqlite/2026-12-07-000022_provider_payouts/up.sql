-- Payouts a provider outside the process made (Stripe's `payout.paid`), each recorded once
-- as a Coffer payout: the provider's payout id, per connector account, names the payout
-- Coffer made of it (docs/payments.md, "Payouts through Stripe").
CREATE TABLE provider_payouts (
    connector_account_uuid TEXT NOT NULL,
    provider_payout_id TEXT NOT NULL,
    payout_uuid TEXT NOT NULL,
    PRIMARY KEY (connector_account_uuid, provider_payout_id)
);
