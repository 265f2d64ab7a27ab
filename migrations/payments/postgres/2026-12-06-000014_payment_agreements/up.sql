-- Payment agreements (docs/decisions/payment-agreements.md): RaiseNow's pledges, answered
-- from what payments has. `subscriptions` is payments' copy of billing's subscriptions, kept
-- from their events: the newest event wins (`updated_ms`, the event's timestamp), so a
-- redelivered older one changes nothing. Billing stays the owner; nothing here is written
-- but by that consumer.
CREATE TABLE subscriptions (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT NOT NULL,
    supporter_uuid TEXT,
    payment_source_uuid TEXT NOT NULL,
    payment_method TEXT NOT NULL,
    test_mode BOOLEAN NOT NULL,
    status TEXT NOT NULL,
    amount BIGINT NOT NULL,
    currency TEXT NOT NULL,
    recurring_interval TEXT NOT NULL,
    custom_parameters TEXT NOT NULL,
    created BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL
);
CREATE INDEX subscriptions_organisation_idx ON subscriptions (organisation_uuid, created);
-- A source no subscription uses is a one-off agreement: the view asks this for every source.
CREATE INDEX subscriptions_source_idx ON subscriptions (payment_source_uuid);
-- Agreements are searched per organisation, as payments are.
CREATE INDEX payment_sources_organisation_idx ON payment_sources (organisation_uuid, created);

-- One row per agreement: a recurring one per subscription, a one-off one per payment source
-- no live subscription uses. The supporter is the subscription's, else its source's.
CREATE VIEW payment_agreements AS
SELECT s.uuid, s.organisation_uuid, s.account_uuid, CAST('recurring' AS TEXT) AS agreement_type,
    s.status, s.amount, s.currency, s.recurring_interval, s.payment_method, s.test_mode,
    s.payment_source_uuid, s.uuid AS subscription_uuid,
    CAST(ps.payment_information AS jsonb) ->> 'mandate_reference' AS mandate_reference,
    COALESCE(s.supporter_uuid, ps.supporter_uuid) AS supporter_uuid,
    sp.first_name AS supporter_first_name, sp.last_name AS supporter_last_name,
    sp.email AS supporter_email, s.custom_parameters, s.created
FROM subscriptions s
LEFT JOIN payment_sources ps ON ps.uuid = s.payment_source_uuid
LEFT JOIN supporters sp ON sp.uuid = COALESCE(s.supporter_uuid, ps.supporter_uuid)
UNION ALL
SELECT ps.uuid, ps.organisation_uuid, ps.account_uuid, CAST('one_off' AS TEXT) AS agreement_type,
    ps.status, CAST(NULL AS BIGINT) AS amount, CAST(NULL AS TEXT) AS currency,
    CAST(NULL AS TEXT) AS recurring_interval, ps.payment_method, ps.test_mode,
    ps.uuid AS payment_source_uuid, CAST(NULL AS TEXT) AS subscription_uuid,
    CAST(ps.payment_information AS jsonb) ->> 'mandate_reference' AS mandate_reference,
    ps.supporter_uuid, sp.first_name AS supporter_first_name,
    sp.last_name AS supporter_last_name, sp.email AS supporter_email,
    ps.custom_parameters, ps.created
FROM payment_sources ps
LEFT JOIN supporters sp ON sp.uuid = ps.supporter_uuid
-- A subscription that was cancelled or ended charges the source no more: it is one-off again.
WHERE NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.payment_source_uuid = ps.uuid
    AND s.status NOT IN ('cancelled', 'ended'));
