-- A service's copy of identity's organisations and accounts (crates/directory), kept from
-- identity's events. IF NOT EXISTS: databases made before this set existed already hold
-- both tables from the service's own first migration.
CREATE TABLE IF NOT EXISTS organisations (
    uuid TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    active BOOLEAN NOT NULL,
    updated_ms BIGINT NOT NULL
);

CREATE TABLE IF NOT EXISTS accounts (
    uuid TEXT PRIMARY KEY,
    organisation_uuid TEXT NOT NULL,
    name TEXT NOT NULL,
    active BOOLEAN NOT NULL,
    updated_ms BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS accounts_organisation_idx ON accounts (organisation_uuid);
