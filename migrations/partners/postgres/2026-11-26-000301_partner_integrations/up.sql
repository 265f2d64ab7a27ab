-- A service's copy of the onboarding service's partner integrations (crates/partners),
-- kept from its events: which organisations a partner's token reaches, read when the
-- token is presented.
CREATE TABLE partner_integrations (
    uuid TEXT PRIMARY KEY,
    partner_uuid TEXT NOT NULL,
    organisation_uuid TEXT NOT NULL,
    enabled BOOLEAN NOT NULL,
    updated_ms BIGINT NOT NULL
);
CREATE INDEX partner_integrations_partner_idx ON partner_integrations (partner_uuid);
