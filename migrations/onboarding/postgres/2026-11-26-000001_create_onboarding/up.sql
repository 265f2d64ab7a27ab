-- The onboarding service's tables (docs/partners.md).

-- What a partner's onboarding makes: which partner may use it, the accounts to create
-- (labels, a JSON array) and the default locale of the user.
CREATE TABLE onboarding_configurations (
    uuid TEXT PRIMARY KEY,
    partner_uuid TEXT NOT NULL,
    account_labels TEXT NOT NULL,
    default_locale TEXT NOT NULL,
    created BIGINT NOT NULL
);
CREATE INDEX onboarding_configurations_partner_idx ON onboarding_configurations (partner_uuid);

-- A partner onboarding process. `token_sha256` finds it by the token (the token itself
-- is kept too: SPEC.md shows it in every form of the record, to the partner). The uuids
-- an execution will make are chosen when it first runs (`planned`, JSON) and kept, so a
-- retry after a failure asks identity for the same objects.
CREATE TABLE onboarding_processes (
    uuid TEXT PRIMARY KEY,
    configuration_uuid TEXT NOT NULL REFERENCES onboarding_configurations (uuid),
    partner_uuid TEXT NOT NULL,
    token TEXT NOT NULL,
    token_sha256 TEXT NOT NULL UNIQUE,
    external_id TEXT NOT NULL,
    status TEXT NOT NULL,
    initialisation_data TEXT NOT NULL,
    planned TEXT,
    results TEXT,
    partner_integration_uuid TEXT,
    expires_at BIGINT NOT NULL,
    created BIGINT NOT NULL,
    updated BIGINT NOT NULL
);
CREATE INDEX onboarding_processes_partner_idx ON onboarding_processes (partner_uuid, created);

-- A partner's access to an organisation: it exists while an enabled integration does.
CREATE TABLE partner_integrations_made (
    uuid TEXT PRIMARY KEY,
    partner_uuid TEXT NOT NULL,
    organisation_uuid TEXT NOT NULL,
    configuration_uuid TEXT NOT NULL,
    process_uuid TEXT NOT NULL,
    status TEXT NOT NULL,
    created BIGINT NOT NULL,
    updated BIGINT NOT NULL
);
CREATE INDEX partner_integrations_made_partner_idx ON partner_integrations_made (partner_uuid, created);
CREATE INDEX partner_integrations_made_organisation_idx ON partner_integrations_made (organisation_uuid);
