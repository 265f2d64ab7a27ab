-- Billing's own data. The organisations and accounts replica, the outbox and inbox and the
-- idempotency keys come from the shared sets in Migrations::includes (crates/directory,
-- crates/events, crates/store).

-- Subscription plans of an organisation (account_uuid NULL) or of one of its accounts.
-- The global default plan is not a row: every organisation's list shows it (plans/domain.rs).
CREATE TABLE subscription_plans (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    account_uuid TEXT,
    name TEXT NOT NULL,
    is_default BOOLEAN NOT NULL,
    dunning_configuration TEXT NOT NULL,
    notification_configuration TEXT NOT NULL,
    created BIGINT NOT NULL,
    updated BIGINT NOT NULL
);
CREATE UNIQUE INDEX subscription_plans_name_idx ON subscription_plans (organisation_uuid, name);
